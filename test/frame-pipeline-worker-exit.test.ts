/**
 * A frame pipeline whose worker ends under it answers in words: the capture call waiting on the
 * worker rejects with the worker's exit sentence (it waited out its 10 s bound with "did not place
 * the tab's window"), a later call rejects with the same sentence at once, and the sentence is
 * told to the pipeline's problem listeners, where the server logs it.
 */
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineProblem } from '../dist/src/main/browser/host/pipeline.js';
import { FrameRig } from './helpers/frame-rig.js';

let rig: FrameRig;

beforeAll(async () => { rig = await FrameRig.start('worker-exit'); });
afterAll(async () => { await rig?.stop(); });

/** The pipeline's own worker, reached past its privacy: the test ends it as a crash would. */
const worker = (name: 'cdp' | 'encoder'): Worker => (rig.pipeline as unknown as Record<typeof name, Worker>)[name];

const EXITED = /^the frame pipeline's capture worker exited \(code \d+\): this host's tabs show no new pictures$/;

describe('a frame pipeline whose capture worker exits', () => {
  it('rejects the pending capture call, and every later one, with the exit sentence', async () => {
    const problems: PipelineProblem[] = [];
    rig.pipeline.onProblem((p) => problems.push(p));
    const targetId = await rig.openTab('simple');
    const pending = rig.pipeline.capture(targetId, 1, 800, 600);
    const settled = pending.then(() => 'resolved', (e: Error) => e);
    await worker('cdp').terminate();
    const e = await settled;
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(EXITED);
    await expect(rig.pipeline.uncapture(targetId)).rejects.toThrow(EXITED);
    expect(problems).toEqual([{ sentence: (e as Error).message, fatal: true }]);
  });
});
