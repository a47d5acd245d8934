import type { ToolDef } from '../tool';

export const meetingAdminTools: ToolDef[] = [];
