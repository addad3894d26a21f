/** An agent's screenshot as the MCP answer brings it, and the colour at its centre. */
import sharp from 'sharp';
import type { Agent } from './server.js';

export interface Shot { text: string; isError: boolean; mime?: string; bytes: Buffer }

export async function shoot(agent: Agent, args: Record<string, unknown>): Promise<Shot> {
  const r = await agent.client.callTool({ name: 'browser_take_screenshot', arguments: args }, undefined, { timeout: 120_000 });
  const content = r.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  const img = content.find((c) => c.type === 'image');
  return { text: content.map((c) => c.text ?? '').join('\n'), isError: r.isError === true, mime: img?.mimeType, bytes: Buffer.from(img?.data ?? '', 'base64') };
}

/** The picture's centre pixel, [r, g, b]. */
export async function centre(bytes: Buffer): Promise<[number, number, number]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}
