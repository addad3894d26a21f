/**
 * A forge process as one node of a cluster: its NATS connection, its profile leases and the
 * routing of viewers to the node owning their profile. Loaded only with [cluster].
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { profileKeyFor, type ClusterConfig, type ForgeConfig } from '../config.js';
import { parseSeat } from '../seat.js';
import { log } from '../logging.js';
import type { ViewerHub } from '../viewers.js';
import { connectNats } from './connection.js';
import { ProfileLeases } from './leases.js';
import { ViewerRouting } from './viewer-routing.js';
import { Presence } from './presence.js';
import { McpForward } from './mcp-forward.js';
import { followLinkKeys, type LinkKeysFollow } from './links.js';
import { handOffNode } from '../../workers/relay/links.js';
import type { LinkKeys } from '../../workers/relay/link-keys.js';
import type { McpElsewhere } from '../mcp/http.js';

/** Said at the start of a node without its own NATS user: what the shared credential leaves open, and the way out. */
export const SHARED_CREDENTIAL_WARNING = 'every node joins NATS with the same credential, so NATS holds no node to its own subjects '
  + '(any node may speak for another, write its link key or read what is meant for it); '
  + '`forge cluster users NODE…` makes one NATS user per node that nats-server holds to them';

export class ClusterNode {
  private routing?: ViewerRouting;
  private readonly mcp: McpForward;

  /** `keyWatch`: keeps every other node's published link key (see links.ts). */
  private constructor(private readonly keyWatch: LinkKeysFollow, readonly cfg: ClusterConfig, private readonly config: ForgeConfig, private readonly nc: NatsConnection, readonly leases: ProfileLeases, readonly presence: Presence) {
    this.mcp = new McpForward(nc, cfg.node, (key) => this.hostOf(key));
    presence.onGone((node) => this.mcp.nodeGone(node));
  }

  /**
   * The node an agent's session for profile `key` is served by, when it is another node: the live
   * node hosting the profile; or, for a profile no live node hosts, the node that hosts browsers
   * and the fewest profiles (which takes the profile on its first call). A node that hosts
   * browsers keeps a free profile itself unless another holds fewer: add a node, and it takes load.
   */
  private hostOf(key: string): string | undefined {
    const owner = this.leases.owner(key);
    if (owner !== undefined && this.presence.alive(owner)) return owner !== this.cfg.node ? owner : undefined;
    const to = this.presence.leastLoadedBrowserNode();
    return to !== this.cfg.node ? to : undefined;
  }

  /** An agent's session for a profile another live node hosts is served there (see mcp-forward.ts). */
  mcpElsewhere(): McpElsewhere {
    return {
      servedBy: (sid) => this.mcp.servedBy(sid),
      nodeFor: (key) => this.hostOf(key),
      forward: (node, owner, req, res, body) => this.mcp.forward(node, owner, req, res, body),
      adopt: (sid, node, owner, opening) => this.mcp.adopt(sid, node, owner, opening),
      sweep: (holds) => this.mcp.sweep(holds),
    };
  }

  /** This node's MCP endpoint is up: sessions other nodes forward are served there, under its own key. */
  serveMcp(port: number, token: string): void { this.mcp.serving.local = { port, token }; }

  /** Joins the cluster; `keys` holds this process's own link key, which it publishes, and gets every other node's. */
  static async start(config: ForgeConfig, keys: LinkKeys): Promise<ClusterNode> {
    const cfg = config.cluster!;
    const nc = await connectNats(cfg, 'main');
    const presence = new Presence(nc, cfg.node);
    const leases = await ProfileLeases.open(nc, cfg.node, cfg.roles.includes('browser'), presence);
    presence.describe(() => ({ browser: cfg.roles.includes('browser'), profiles: leases.count }));
    const keyWatch = await followLinkKeys(nc, keys, {
      publish: true,
      unreadable: (node) => log.warn({ node }, `node ${node} published a link key that is not an Ed25519 public key; its links open nothing`),
    });
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect') log.warn({ node: cfg.node, status: s.type }, `node ${cfg.node}: NATS ${s.type === 'disconnect' ? 'connection lost; reconnecting' : 'connection back'}`);
      }
    })().catch(() => undefined);
    log.info({ node: cfg.node, nats: cfg.nats, roles: cfg.roles }, 'joined the cluster');
    if (cfg.user === undefined) log.warn({ node: cfg.node }, SHARED_CREDENTIAL_WARNING);
    return new ClusterNode(keyWatch, cfg, config, nc, leases, presence);
  }

  /** The profile a viewer opening with `query` sees: its seat's, or the org's own. */
  private profileOf(query: string): string | undefined {
    const seat = new URLSearchParams(query).get('seat');
    try { return profileKeyFor(this.config, seat ? parseSeat(seat).project : '*'); } catch { return undefined; }
  }

  /** From now on, a viewer whose profile another node owns is served there, and other nodes' viewers are served here. */
  attach(hub: ViewerHub): void {
    this.routing = new ViewerRouting(this.nc, this.cfg.node, hub, (query, grant) => {
      // A hand-off link is served by the node holding its hand-off, which its id names.
      const key = grant.kind === 'link' ? undefined : this.profileOf(query);
      const owner = grant.kind === 'link' ? handOffNode(grant.handoff) : key === undefined ? undefined : this.leases.owner(key);
      // A silent owner serves nobody: the viewer is served here until the profile is placed again.
      return owner !== undefined && this.presence.alive(owner) ? owner : undefined;
    });
    hub.bridge = this.routing;
    this.presence.onGone((node) => this.routing?.nodeGone(node));
  }

  /** Gives the leases back (another node may take the profiles at once) and leaves NATS. */
  async close(): Promise<void> {
    this.routing?.close();
    this.mcp.close();
    this.presence.close();
    this.keyWatch.stop();
    await this.leases.close();
    await this.nc.drain().catch(() => undefined);
  }
}
