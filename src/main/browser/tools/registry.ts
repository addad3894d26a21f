/** The browser tools that live in modules of their own, in the order an agent reads them. */
import type { ToolDef } from '../tools.js';
import { NAVIGATION_TOOLS } from './navigation.js';
import { SNAPSHOT_TOOLS } from './snapshot.js';
import { POINTER_TOOLS } from './pointer.js';
import { FORM_TOOLS } from './forms.js';
import { SCREENSHOT_TOOLS } from './screenshot.js';
import { WAIT_FOR_TOOLS } from './wait-for.js';
import { CONSOLE_TOOLS } from './console.js';
import { NETWORK_TOOLS } from './network.js';
import { RESIZE_TOOLS } from './resize.js';

export const MODULE_TOOLS: ToolDef[] = [
  ...NAVIGATION_TOOLS, ...SNAPSHOT_TOOLS, ...POINTER_TOOLS, ...FORM_TOOLS, ...SCREENSHOT_TOOLS,
  ...WAIT_FOR_TOOLS, ...CONSOLE_TOOLS, ...NETWORK_TOOLS, ...RESIZE_TOOLS,
];
