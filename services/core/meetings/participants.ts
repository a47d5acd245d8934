/** Who took part in a meeting (meeting_participants): what makes it visible to its participants. */
import type { Knex } from 'knex';

export interface NewParticipant {
  email: string;
  name: string | null;
  userId: string | null;
}

/**
 * The organizer and the named attendees of a new meeting (upload or live), so they can find it while
 * it is processed or running; the transcript's speakers join them when it is persisted. The same email
 * twice is one participant.
 */
export async function addParticipants(
  tx: Knex | Knex.Transaction,
  meetingId: string,
  people: NewParticipant[],
): Promise<void> {
  await tx('meeting_participants')
    .insert(people.map((x) => ({ meeting_id: meetingId, email: x.email, name: x.name ?? null, user_id: x.userId })))
    .onConflict(['meeting_id', 'email'])
    .ignore();
}
