/** The browser tools that live in modules of their own, in the order an agent reads them. */
import type { ToolDef } from './tool-def.js';
import { NAVIGATION_TOOLS } from './navigation.js';
import { SNAPSHOT_TOOLS } from './snapshot.js';
import { POINTER_TOOLS } from './pointer.js';
import { FORM_TOOLS } from './forms.js';
import { SCREENSHOT_TOOLS } from './screenshot.js';
import { WAIT_FOR_TOOLS } from './wait-for.js';
import { CONSOLE_TOOLS } from './console.js';
import { NETWORK_TOOLS } from './network.js';
import { RESIZE_TOOLS } from './resize.js';
import { FILE_TOOLS } from './files.js';
import { RUN_CODE_TOOLS } from './run-code.js';
import { VISION_TOOLS } from './vision.js';
import { PDF_TOOLS } from './pdf.js';
import { STORAGE_TOOLS } from './storage.js';
import { ROUTE_TOOLS } from './routes.js';
import { VERIFY_TOOLS } from './verify.js';
import { TRACING_TOOLS } from './tracing.js';
import { VIDEO_TOOLS } from './video.js';
import { VIDEO_MARK_TOOLS } from './video-marks.js';
import { HIGHLIGHT_TOOLS } from './highlight.js';

export const MODULE_TOOLS: ToolDef[] = [
  ...NAVIGATION_TOOLS, ...SNAPSHOT_TOOLS, ...POINTER_TOOLS, ...FORM_TOOLS, ...SCREENSHOT_TOOLS,
  ...WAIT_FOR_TOOLS, ...CONSOLE_TOOLS, ...NETWORK_TOOLS, ...RESIZE_TOOLS, ...FILE_TOOLS,
  // Offered only with [agent] allow_run_code = true.
  ...RUN_CODE_TOOLS,
  // Opt-in groups: offered only when [agent] caps names them.
  ...VISION_TOOLS, ...PDF_TOOLS, ...STORAGE_TOOLS, ...ROUTE_TOOLS, ...VERIFY_TOOLS, ...TRACING_TOOLS, ...VIDEO_TOOLS,
  ...VIDEO_MARK_TOOLS, ...HIGHLIGHT_TOOLS,
];
