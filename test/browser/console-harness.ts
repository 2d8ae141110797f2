// The browser suites' harness: Debian's chromium through playwright-core, a whole sandbox on the local
// runtime with the teaching console in front of it, screenshots under artifacts/screenshots/, and small
// waits on stable data-testids.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startConsoleServer, type ConsoleServer } from '../../sandbox/console/server.ts';
import { REPO_ROOT } from '../../sandbox/state.ts';
import { startE2eSandbox, type E2eSandbox } from '../helpers/sandbox.ts';

export const SCREENSHOT_DIR = join(REPO_ROOT, 'artifacts', 'screenshots');

const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `extraArgs`: more Chromium switches (the security suite maps attacker names to loopback with them). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`no browser at ${executablePath}: install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

export interface ConsoleHarness {
  readonly e2e: E2eSandbox;
  readonly console: ConsoleServer;
  readonly browser: Browser;
  close(): Promise<void>;
}

export async function startConsoleHarness(): Promise<ConsoleHarness> {
  const e2e = await startE2eSandbox({ name: 'browser' });
  const console = await startConsoleServer(e2e.sandbox, { clusterIntervalMs: 500, cloudIntervalMs: 2000 });
  const browser = await launchChromium();
  return {
    e2e,
    console,
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      await console.close();
      await e2e.sandbox.down();
    },
  };
}

export async function openConsole(h: { browser: Browser }, url: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await h.browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.getByTestId('status-stream').and(page.locator('[data-state="live"]')).waitFor({ timeout: 15_000 });
  (page as Page & { errors?: string[] }).errors = errors;
  return page;
}

export function pageErrors(page: Page): string[] {
  return (page as Page & { errors?: string[] }).errors ?? [];
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

export const byId = (page: Page, id: string): Locator => page.getByTestId(id);

/** Waits until the element with this test id shows `text`. */
export async function waitForText(page: Page, id: string, text: string | RegExp, timeout = 30_000): Promise<void> {
  await page.getByTestId(id).filter({ hasText: text }).first().waitFor({ timeout });
}

/** The text of every timeline step of a group (`Node/<name>`, `Service/<ns>/<name>`). */
export async function timelineSteps(page: Page, group: string): Promise<{ title: string; method: string; explanation: string }[]> {
  return page.locator(`[data-testid="timeline-step"][data-group="${group}"]`).evaluateAll((els) =>
    els.map((el) => ({
      title: el.querySelector('[data-testid="timeline-title"]')?.textContent ?? '',
      method: el.getAttribute('data-method') ?? '',
      explanation: el.querySelector('[data-testid="timeline-explanation"]')?.textContent ?? '',
    })),
  );
}

/** Polls the timeline until a step of `group` whose title matches `title` shows up; returns it. */
export async function waitForStep(page: Page, group: string, title: RegExp, timeout = 30_000): Promise<{ title: string; method: string; explanation: string }> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const step = (await timelineSteps(page, group)).find((s) => title.test(s.title));
    if (step) return step;
    if (Date.now() > deadline) throw new Error(`no timeline step ${title} in ${group} after ${timeout} ms`);
    await page.waitForTimeout(250);
  }
}

/** Runs a tour step: clicks its action (when it has one) and waits until every expectation is ticked. */
export async function runTourStep(page: Page, timeout = 90_000): Promise<void> {
  const action = page.getByTestId('tour-action');
  if (await action.count()) await action.click();
  await page.locator('[data-testid="tour-status"][data-complete="true"]').waitFor({ timeout });
}
