/**
 * Who follows which profile's tab list: a viewer follows one profile as its own (the one it asked
 * for, or the one it first watched a tab of) and, with `every`, the org's others too. A change to a
 * profile's tabs reaches each follower as its token may see it; followers with a whole-org token
 * share one message.
 */
import type { ViewerGrant } from '../../../shared/grants.js';
import type { ViewerHub, ViewerInfo } from '../../viewers.js';
import type { ProfileBrowser } from '../profile.js';
import { isWholeOrg, type TabListMessage } from './tab-list.js';

/** `own`: the profile whose tab list this viewer follows; `also`: the org's other profiles it follows too. */
interface Follower { info: ViewerInfo; own?: string; also?: ReadonlySet<string> }

export interface TabListSource {
  /** The profile's tab list as this grant may see it. */
  list(p: ProfileBrowser, grant: ViewerGrant): TabListMessage;
  profile(key: string): ProfileBrowser;
  /** Every profile the org has (its own and each project's). */
  orgProfileKeys(): string[];
}

export class TabListFollowers {
  private readonly followers = new Map<number, Follower>();

  constructor(private readonly hub: ViewerHub, private readonly source: TabListSource) {}

  /** The viewer follows `p`'s list, and with `every` the org's other profiles' too: each is sent at once. */
  follow(v: ViewerInfo, p: ProfileBrowser, every: boolean | undefined): void {
    const also = every ? this.source.orgProfileKeys().filter((k) => k !== p.key) : [];
    this.followers.set(v.id, { info: v, own: p.key, ...(also.length ? { also: new Set(also) } : {}) });
    this.hub.send(v.id, this.source.list(p, v.grant));
    for (const k of also) this.hub.send(v.id, { ...this.source.list(this.source.profile(k), v.grant), also: true });
  }

  /** A viewer that follows no list yet follows the profile of the tab it watches (nothing is sent: its view is). */
  followIfNone(v: ViewerInfo, key: string): void {
    const f = this.followers.get(v.id);
    if (f?.own === undefined) this.followers.set(v.id, { ...f, info: v, own: key });
  }

  forget(viewer: number): void { this.followers.delete(viewer); }

  /** Whether the viewer follows the profile's list as its own. */
  ownOf(viewer: number, key: string): boolean { return this.followers.get(viewer)?.own === key; }

  /** Every profile some viewer follows, own or also (once per follower). */
  followed(): string[] {
    return [...this.followers.values()].flatMap((f) => [...(f.own ? [f.own] : []), ...(f.also ?? [])]);
  }

  /** A profile's tabs changed: each follower gets its list. */
  changed(p: ProfileBrowser): void {
    for (const how of ['own', 'also'] as const) {
      const subs = [...this.followers.values()].filter((f) => (how === 'own' ? f.own === p.key : f.also?.has(p.key)));
      const mark = how === 'also' ? { also: true as const } : {};
      const whole = subs.filter((f) => isWholeOrg(f.info.grant));
      if (whole.length) this.hub.send(whole.map((f) => f.info.id), { ...this.source.list(p, whole[0]!.info.grant), ...mark });
      for (const f of subs) if (!isWholeOrg(f.info.grant)) this.hub.send(f.info.id, { ...this.source.list(p, f.info.grant), ...mark });
    }
  }
}
