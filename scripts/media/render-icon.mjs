// Renders the Marketplace icon, media/icon.png (128×128, as vsce requires a PNG), from scripts/media/icon.svg with
// Debian's Chromium through playwright-core (a dev dependency). The activity bar icon, media/activitybar.svg, is
// used as it is (VS Code draws it in the theme's colour).
//
//   node scripts/media/render-icon.mjs
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';

const svg = readFileSync('scripts/media/icon.svg', 'utf8');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.screenshot({ path: 'media/icon.png', omitBackground: true, clip: { x: 0, y: 0, width: 128, height: 128 } });
} finally {
  await browser.close();
}
console.log('wrote media/icon.png');
