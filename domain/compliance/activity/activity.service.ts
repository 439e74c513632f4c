import type { EntityManager } from '@mikro-orm/postgresql';
import { actorKeyId, actorName, type DomainContext } from '../../context';
import { makeEvent, type DomainEvent } from '../../events/bus';
import type { RowSink } from '../../database/row-batch';
import { newId } from '../../ids';
import { Activity } from './activity.entity';
import { clock } from '../../clock';

export interface ActivityView {
  id: string;
  timestamp: string;
  type: string;
  /** The key's name then: display only, names are not unique. */
  user: string;
  /** The acting key's id (`admin` for the configured admin key): who it was. */
  userKeyId: string | null;
  description: string;
  subjectId: string | null;
}

export const activityView = (a: Activity): ActivityView => ({
  id: a.id,
  timestamp: a.at.toISOString(),
  type: a.type,
  user: a.user,
  userKeyId: a.userKeyId ?? null,
  description: a.description,
  subjectId: a.subjectId ?? null,
});

/** Who did what: one row per change, written in the change's own transaction, plus a `user.activity` event. */
export class ActivityService {
  /**
   * One activity line for a change, handed to `sink` (inserted by the caller in the change's
   * transaction), and its `user.activity` event returned unstaged (the caller stages it with the
   * change's other events and publishes after commit).
   */
  recordInto(sink: RowSink, ctx: DomainContext, type: string, description: string, subjectId?: string | null): DomainEvent {
    const view: ActivityView = {
      id: newId('act'),
      timestamp: '',
      type,
      user: actorName(ctx),
      userKeyId: actorKeyId(ctx),
      description: description.slice(0, 2000),
      subjectId: subjectId ?? null,
    };
    const at = clock.now();
    view.timestamp = at.toISOString();
    sink.add('activity_log', {
      id: view.id,
      at,
      type: view.type,
      user: view.user,
      user_key_id: view.userKeyId,
      description: view.description,
      subject_id: view.subjectId,
    });
    return makeEvent('user.activity', { ...view });
  }

  /** Most recent first. */
  async recent(em: EntityManager, limit = 20): Promise<ActivityView[]> {
    const rows = await em.find(Activity, {}, { orderBy: { at: 'desc', id: 'desc' }, limit: Math.min(Math.max(limit, 1), 200) });
    return rows.map(activityView);
  }
}
