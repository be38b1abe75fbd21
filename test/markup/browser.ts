// A headless-Chromium harness for the XSS suite: serves HTML fragments from a local page server, loads them in
// Debian's chromium through playwright-core, pokes every element (click, hover, focus, key, error, toggle …), and
// reports whether any script ran and what the DOM holds that should not be there.
import http from 'node:http';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the browser check cannot run, or null. */
export function browserUnavailable(): string | null {
  if (existsSync(CHROMIUM)) return null;
  return `chromium is not installed at ${CHROMIUM}: run \`apt-get install -y chromium\` (the CI script installs it), `
    + 'or set FORGEKIT_SKIP_BROWSER=1 to skip the browser check by hand';
}

export interface PageReport {
  /** Script that ran: dialogs opened (alert/confirm/prompt) and calls to the instrumented globals. */
  executed: string[];
  /** What the rendered DOM holds that a sanitised document must not. */
  domProblems: string[];
}

export interface BrowserHarness {
  /** Loads the fragments (each in its own container) as one page and reports. */
  check(fragments: string[]): Promise<PageReport>;
  close(): Promise<void>;
}

// Runs in the page before any of its content: every way a payload signals is recorded in window.__xss.
const INSTRUMENT = `
  window.__xss = [];
  // (eval is not wrapped: the harness itself evaluates through it; a payload's eval ends in one of these.)
  for (const name of ['alert', 'confirm', 'prompt', 'print']) {
    window[name] = function (...args) {
      window.__xss.push(name + '(' + args.map(String).join(',') + ')');
    };
  }
`;

const EVENTS = ['mouseover', 'mouseenter', 'mousemove', 'mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu',
  'pointerover', 'pointerdown', 'pointerup', 'focus', 'focusin', 'blur', 'keydown', 'keypress', 'keyup', 'input',
  'change', 'toggle', 'load', 'error', 'animationstart', 'transitionend', 'wheel', 'scroll', 'copy', 'paste',
  'submit', 'beforeinput', 'mouseleave', 'mouseout'];

/** Poked in the page: every event on every element, real clicks on links (navigation to safe schemes is held back). */
async function poke(page: Page): Promise<void> {
  await page.evaluate((events) => {
    // A click on an http(s)/mailto link would navigate away from the page under test; script URLs are let through.
    document.addEventListener('click', (e) => {
      const a = (e.target as Element | null)?.closest?.('a');
      if (a && /^(https?|mailto):$/.test((a as HTMLAnchorElement).protocol)) e.preventDefault();
    }, true);
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      for (const type of events) el.dispatchEvent(new Event(type, { bubbles: true, cancelable: true }));
      (el as HTMLElement).focus?.();
      (el as HTMLElement).click?.();
    }
  }, EVENTS);
}

/** DOM checks: elements, attributes and URLs that must never survive the sanitiser. */
async function inspect(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const forbidden = 'script,iframe,frame,frameset,object,embed,applet,form,button,select,textarea,option,style,link,'
      + 'meta,base,svg,math,template,noscript,audio,video,source,track,marquee,isindex,keygen';
    for (const el of Array.from(document.querySelectorAll(forbidden))) {
      if (el.closest('#harness-head')) continue;
      problems.push(`<${el.tagName.toLowerCase()}> element`);
    }
    const safeData = /^data:image\/(?:png|gif|jpe?g|webp|avif|bmp|x-icon);base64,/i;
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const tag = el.tagName.toLowerCase();
      for (const attr of Array.from(el.attributes)) {
        const name = attr.name.toLowerCase();
        const value = attr.value.replace(/[\u0000-\u0020]/g, '');
        if (name.startsWith('on')) problems.push(`${tag}[${name}] event handler`);
        if (name === 'style' || name === 'srcdoc' || name === 'formaction' || name === 'action' || name === 'srcset'
          || name === 'background' || name === 'xlink:href' || name === 'target') problems.push(`${tag}[${name}]`);
        if (name === 'class' && !(tag === 'code' && /^language-[A-Za-z0-9_+#.-]+$/.test(attr.value))) problems.push(`${tag}[class=${attr.value}]`);
        if (/^(javascript|vbscript|livescript):/i.test(value)) problems.push(`${tag}[${name}] script URL`);
        if (/^data:/i.test(value) && !(tag === 'img' && name === 'src' && safeData.test(value))) problems.push(`${tag}[${name}] data URL`);
      }
      if (tag === 'a' && (el as HTMLAnchorElement).href && /^(javascript|vbscript|data):/i.test((el as HTMLAnchorElement).protocol)) {
        problems.push(`a with ${(el as HTMLAnchorElement).protocol} link`);
      }
      if (tag === 'input' && !((el as HTMLInputElement).type === 'checkbox' && (el as HTMLInputElement).disabled)) {
        problems.push('input that is not a disabled checkbox');
      }
    }
    return problems;
  });
}

export async function openBrowserHarness(): Promise<BrowserHarness> {
  const pages = new Map<string, string>();
  let counter = 0;
  const server = http.createServer((req, res) => {
    const body = pages.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  } catch (err) {
    server.close();
    throw err;
  }

  return {
    async check(fragments) {
      const path = `/page/${++counter}`;
      const body = '<!doctype html><html><head id="harness-head"><meta charset="utf-8"><title>xss</title></head><body>'
        + fragments.map((html, i) => `<div id="fragment-${i}">${html}</div>`).join('\n') + '</body></html>';
      pages.set(path, body);
      const context = await browser.newContext({ javaScriptEnabled: true });
      const executed: string[] = [];
      try {
        await context.addInitScript(INSTRUMENT);
        // Only the page itself is served; every other request (images, scripts, frames) is refused.
        await context.route('**/*', (route) => (route.request().url() === origin + path ? route.continue() : route.abort()));
        const page = await context.newPage();
        page.on('dialog', (dialog) => {
          executed.push(`dialog ${dialog.type()}(${dialog.message()})`);
          void dialog.dismiss().catch(() => {});
        });
        await page.goto(origin + path, { waitUntil: 'load' });
        await poke(page);
        await page.waitForTimeout(150);
        executed.push(...(await page.evaluate(() => (window as unknown as { __xss: string[] }).__xss)));
        const domProblems = await inspect(page);
        return { executed, domProblems };
      } finally {
        pages.delete(path);
        await context.close();
      }
    },
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
