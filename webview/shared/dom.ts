/** The DOM helper every webview builds its page with. */

/**
 * A new element: `el('td', { class: 'num' }, '0.42')`. Attributes are set as given (an empty string sets a boolean
 * attribute); children are appended in order, strings as text.
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}
