import type { ToolDef } from '../tool';

export const soundbiteTools: ToolDef[] = [];
