/** Step 1 when the resource offers several products and no prdRef is given. */
import { h } from '../dom.js';
import { fill } from '../i18n.js';
import { stepHeading, stepInfo } from './parts.js';

/** @typedef {import('../mount.js').Widget} Widget */

/** @param {Widget} w */
export function viewProducts(w) {
  const { t } = w;
  return h(
    'section',
    { class: 'bw-step' },
    stepInfo(w),
    stepHeading(w, t.stepProduct),
    h(
      'ul',
      { class: 'bw-products', role: 'list' },
      w.s.products.map((p) =>
        h(
          'li',
          null,
          h(
            'button',
            {
              type: 'button',
              class: 'bw-product',
              'data-key': `product-${p.uuid}`,
              onclick: () => w.actions.chooseProduct(p),
            },
            h('span', { class: 'bw-product-name' }, p.name || ''),
            p.minDuration ? h('span', { class: 'bw-product-meta' }, fill(t.minutes, { n: p.minDuration })) : null,
            p.description && h('span', { class: 'bw-product-desc' }, p.description),
          ),
        ),
      ),
    ),
  );
}
