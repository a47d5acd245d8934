import type { ToolDef } from '../tool';

export const transcriptTools: ToolDef[] = [];
