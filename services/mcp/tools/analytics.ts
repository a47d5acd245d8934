import type { ToolDef } from '../tool';

export const analyticsTools: ToolDef[] = [];
