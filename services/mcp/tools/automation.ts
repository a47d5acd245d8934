import type { ToolDef } from '../tool';

export const automationTools: ToolDef[] = [];
