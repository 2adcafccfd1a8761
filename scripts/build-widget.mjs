// Bundles the widget (widget/src/main.js and what it imports) into dist/widget/widget.js, the file
// GET /widget.js serves, and fails when the widget's assets outgrow their budget.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const OUTFILE = 'dist/widget/widget.js';
/** gzipped bytes of widget.js, widget.css and frame.js together (docs/widget.md, "Size and caching") */
export const BUDGET = 20 * 1024;

await build({
  entryPoints: ['widget/src/main.js'],
  outfile: OUTFILE,
  bundle: true,
  format: 'iife',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  banner: {
    js: `/*! Booking widget, built from widget/src/ of the booking service (see its docs/widget.md).
 * <script src="https://SERVICE/widget.js" data-ref="RESOURCE_REF" data-lang="de"></script>
 * or an iframe of https://SERVICE/widget?ref=RESOURCE_REF */`,
  },
  charset: 'utf8',
  logLevel: 'warning',
});

const gz = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const sizes = { 'widget.js': gz(OUTFILE), 'widget.css': gz('widget/widget.css'), 'frame.js': gz('widget/frame.js') };
const total = Object.values(sizes).reduce((a, b) => a + b, 0);
console.log(
  `widget: ${Object.entries(sizes)
    .map(([k, v]) => `${k} ${v} B`)
    .join(', ')} gzipped; ${total} B of ${BUDGET} B`,
);
if (total > BUDGET) {
  console.error(`widget assets are ${total} B gzipped, over the budget of ${BUDGET} B`);
  process.exit(1);
}
