/** Channels (folders) of the caller's team, as the channel tools show them. */
import type { Knex } from 'knex';
import { channelVisibleTo, type Principal } from '../access';
import { invalid, notFound } from '../../platform/errors';
import type { Page } from '../meetings';

/** One row of a channel list: flat, members as one comma-separated string of emails. */
export interface ChannelListRecord {
  id: string;
  title: string;
  is_private: boolean;
  members: string;
  member_count: number;
}

export interface ChannelMember {
  user_id: string;
  email: string;
  name: string;
  role: string;
}

export interface ChannelRecord {
  id: string;
  title: string;
  is_private: boolean;
  members: ChannelMember[];
}

/** A team has tens of channels; the cap only keeps a pathological team from flooding a model. */
export const CHANNEL_LIST_CAP = 500;

/** Channels the caller may see, by title: public ones of the team, private ones they belong to, all for admins. */
export async function listChannels(db: Knex, p: Principal): Promise<{ channels: ChannelListRecord[] } & Page> {
  const rows: { id: string; title: string; is_private: boolean; members: string | null; member_count: string }[] =
    await db('channels as c')
      .modify(channelVisibleTo(p, 'c'))
      .leftJoin('channel_members as cm', 'cm.channel_id', 'c.id')
      .leftJoin('users as u', 'u.id', 'cm.user_id')
      .groupBy('c.id', 'c.title', 'c.is_private')
      .select('c.id', 'c.title', 'c.is_private')
      .select(db.raw("string_agg(lower(u.email), ', ' order by lower(u.email)) as members"))
      .select(db.raw('count(u.id) as member_count'))
      .orderByRaw('lower(c.title), c.id')
      .limit(CHANNEL_LIST_CAP + 1);
  return {
    channels: rows.slice(0, CHANNEL_LIST_CAP).map((r) => ({
      id: r.id,
      title: r.title,
      is_private: r.is_private,
      members: r.members ?? '',
      member_count: Number(r.member_count),
    })),
    has_more: rows.length > CHANNEL_LIST_CAP,
  };
}

/** One channel with its members; a channel the caller may not see is reported as not found. */
export async function getChannel(db: Knex, p: Principal, channelId: string): Promise<ChannelRecord> {
  if (!channelId.trim()) throw invalid('channelId', 'must not be empty');
  const channel = await db('channels as c')
    .modify(channelVisibleTo(p, 'c'))
    .where('c.id', channelId)
    .first('c.id', 'c.title', 'c.is_private');
  if (!channel) throw notFound('channel', channelId);
  const members: ChannelMember[] = await db('channel_members as cm')
    .join('users as u', 'u.id', 'cm.user_id')
    .where('cm.channel_id', channel.id)
    .orderByRaw('lower(u.email)')
    .select('u.id as user_id', db.raw('lower(u.email) as email'), 'u.name', 'cm.role');
  return { id: channel.id, title: channel.title, is_private: channel.is_private, members };
}
