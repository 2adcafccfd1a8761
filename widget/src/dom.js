/** Building DOM nodes without a framework. */

/**
 * Creates an element. attrs: on* functions become listeners; `false`, null and undefined are left
 * out, `true` is an empty attribute.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...any} children strings, numbers, nodes, arrays, or false/null (skipped)
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value') /** @type {HTMLInputElement} */ (el).value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** @param {Node} parent @param {any[]} children */
export function append(parent, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}
