import type { ToolDef } from '../tool';

export const searchTools: ToolDef[] = [];
