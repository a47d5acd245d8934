import type { ToolDef } from '../tool';

export const channelTools: ToolDef[] = [];
