/**
 * The opt-in groups of browser tools, named as Playwright MCP's --caps names them and enabled
 * per server by forge.toml's `[agent] caps = [...]`. Core tools are always on; a group's tools are
 * not offered at all until it is named, so an agent's tool list stays as short as the server allows.
 */
export const AGENT_CAPS = ['vision', 'pdf', 'storage', 'network', 'testing', 'devtools'] as const;
export type AgentCap = typeof AGENT_CAPS[number];

export function isAgentCap(v: string): v is AgentCap {
  return (AGENT_CAPS as readonly string[]).includes(v);
}
