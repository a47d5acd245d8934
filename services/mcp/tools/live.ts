import type { ToolDef } from '../tool';

export const liveTools: ToolDef[] = [];
