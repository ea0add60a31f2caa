/**
 * The dialogue editor's layout (issue 18 items 2 and 7): an item list that resizes (drag or arrow keys on its
 * splitter) and hides (toolbar button or `L`), a transcript that collapses to its last turns, a toolbar whose
 * buttons move into an overflow menu when the editor is narrow (a side panel, a 1280×720 laptop), and a live region
 * that tells screen readers what a label change did. What the researcher chose (width, hidden, whole transcript,
 * navigation bar open) is kept in the webview state.
 *
 * On a laptop with the panel beside (issue 41 item 5: 1280×720, the Explorer open, the editor about 470 px wide) the
 * editor keeps one header row: the navigation bar (search, filters, order, progress) folds behind the toolbar's
 * Find button (`/` opens it and focuses the search), the item list stays at its narrowest width rather than
 * hiding, and the transcript grows in the item's own scroll instead of scrolling in a box of its own.
 *
 * Kept apart from main.ts (item list, labels) so the layout can change without reshaping them.
 */

interface VsCodeState {
  getState(): unknown;
  setState(s: unknown): void;
}

/** The part of the webview state the layout owns (merged with main.ts's part). */
export interface LayoutState {
  /** Item list width in px, as the researcher dragged it. */
  listWidth?: number;
  /** Item list hidden (true) or shown (false) by the researcher; undefined: hidden only when the editor is narrow. */
  listHidden?: boolean;
  /** Show the whole transcript rather than its last turns. */
  transcriptAll?: boolean;
  /** Navigation bar shown (true) or folded (false) by the researcher; undefined: folded only when the editor is narrow. */
  navOpen?: boolean;
}

/** Turns shown of a longer context until the researcher asks for all of them. */
export const TRANSCRIPT_TAIL = 4;
const LIST_MIN = 140;
const LIST_MAX_SHARE = 0.6;
/** Below this editor width the item list starts hidden (until the researcher shows it): a phone, not a laptop. */
const NARROW = 360;
/** Below this editor width the navigation bar starts folded behind the Find button (a panel beside the editor). */
const NAV_FOLD = 720;
/** Toolbar buttons in the order they move into the overflow menu (least used while labelling first). */
const COLLAPSE_ORDER = ['#cmd-generate', '#cmd-judge', '#cmd-agreement', '#cmd-correlation', '#cmd-annotator', '#cmd-compare', '#cmd-blind'];

let api: VsCodeState;
let onListChange: () => void = () => undefined;

function state(): LayoutState & Record<string, unknown> {
  return ((api.getState() as Record<string, unknown> | undefined) ?? {}) as LayoutState & Record<string, unknown>;
}

/** Writes `patch` over the webview state, keeping every other key (main.ts's selection, seq, …). */
export function patchState(patch: Record<string, unknown>): void {
  api.setState({ ...state(), ...patch });
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

// ---------------------------------------------------------------------------------------------- announcements

/** Says `text` to screen readers through the polite live region (label changes, list shown/hidden). */
export function announce(text: string): void {
  const box = byId('announcer');
  if (!box) return;
  // Clearing first makes a repeated message count as a change.
  box.textContent = '';
  setTimeout(() => (box.textContent = text), 30);
}

// ---------------------------------------------------------------------------------------------- item list

function listMax(): number {
  return Math.max(LIST_MIN, Math.round(window.innerWidth * LIST_MAX_SHARE));
}

function defaultListWidth(): number {
  return Math.round(Math.min(280, Math.max(LIST_MIN, window.innerWidth * 0.28)));
}

function listWidth(): number {
  const w = state().listWidth ?? defaultListWidth();
  return Math.min(listMax(), Math.max(LIST_MIN, w));
}

/** Whether the item list is hidden now. */
export function listHidden(): boolean {
  const s = state().listHidden;
  return s ?? window.innerWidth < NARROW;
}

function applyList(): void {
  const list = byId('item-list');
  const splitter = byId('splitter');
  const toggle = byId('toggle-list');
  if (!list || !splitter) return;
  const hidden = listHidden();
  const width = listWidth();
  list.hidden = hidden;
  splitter.hidden = hidden;
  list.style.width = `${width}px`;
  splitter.setAttribute('aria-valuenow', String(width));
  splitter.setAttribute('aria-valuemin', String(LIST_MIN));
  splitter.setAttribute('aria-valuemax', String(listMax()));
  splitter.setAttribute('aria-valuetext', `item list ${width} pixels wide`);
  if (toggle) {
    toggle.setAttribute('aria-expanded', String(!hidden));
    toggle.setAttribute('aria-label', hidden ? 'Show the item list (L)' : 'Hide the item list (L)');
    toggle.title = hidden ? 'Show the item list (L)' : 'Hide the item list (L)';
  }
  onListChange();
}

/** Shows or hides the item list (toolbar button, `L`); remembered. */
export function toggleList(): void {
  const hidden = !listHidden();
  patchState({ listHidden: hidden } satisfies LayoutState);
  applyList();
  announce(hidden ? 'Item list hidden' : 'Item list shown');
  fitToolbar();
}

function setListWidth(px: number): void {
  const width = Math.min(listMax(), Math.max(LIST_MIN, Math.round(px)));
  patchState({ listWidth: width } satisfies LayoutState);
  applyList();
}

function initSplitter(): void {
  const splitter = byId('splitter');
  const list = byId('item-list');
  if (!splitter || !list) return;
  splitter.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    splitter.setPointerCapture(e.pointerId);
    splitter.classList.add('dragging');
    const left = list.getBoundingClientRect().left;
    const move = (ev: PointerEvent) => setListWidth(ev.clientX - left);
    const up = () => {
      splitter.classList.remove('dragging');
      splitter.removeEventListener('pointermove', move);
      splitter.removeEventListener('pointerup', up);
      splitter.removeEventListener('pointercancel', up);
    };
    splitter.addEventListener('pointermove', move);
    splitter.addEventListener('pointerup', up);
    splitter.addEventListener('pointercancel', up);
  });
  splitter.addEventListener('dblclick', () => {
    patchState({ listWidth: undefined });
    applyList();
  });
  // Arrow keys resize (Shift: by more), Home/End: narrowest/widest, Enter: hide. Kept from VS Code's keybindings
  // (arrows are candidate keys elsewhere in the editor).
  splitter.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 64 : 16;
    const now = listWidth();
    const to: Record<string, number> = { ArrowLeft: now - step, ArrowRight: now + step, Home: LIST_MIN, End: listMax() };
    if (e.key in to) setListWidth(to[e.key]);
    else if (e.key === 'Enter') toggleList();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
}

// ---------------------------------------------------------------------------------------------- navigation bar

/** Whether the navigation bar (navigator.ts) is shown now. */
export function navOpen(): boolean {
  return state().navOpen ?? window.innerWidth >= NAV_FOLD;
}

/**
 * Folds or shows the navigation bar. Done with a class on the body, so it holds whenever navigator.ts builds the
 * bar; the Find button says which.
 */
function applyNav(): void {
  const open = navOpen();
  document.body.classList.toggle('nav-folded', !open);
  const bar = byId('navigator');
  if (bar) bar.hidden = !open;
  const toggle = byId('toggle-nav');
  if (toggle) {
    toggle.setAttribute('aria-expanded', String(open));
    // Folded, the button still says when a search or filter narrows the list ("Find · 3 of 15").
    const count = (byId('nav-count')?.textContent ?? '').trim();
    const narrowed = /^(\d+) of (\d+) items$/.exec(count);
    toggle.textContent = !open && narrowed ? `Find · ${narrowed[1]} of ${narrowed[2]}` : 'Find';
    toggle.title = open ? 'Fold the search, filters and progress (/ focuses the search)' : `Search, filters, order and progress (/)${count ? `: ${count}` : ''}`;
  }
}

/** Follows the navigation bar's item count, so the folded Find button can say the list is narrowed. */
function watchCount(): void {
  const count = byId('nav-count');
  if (!count || !('MutationObserver' in window)) return;
  new MutationObserver(() => {
    if (!navOpen()) {
      applyNav();
      fitToolbar();
    }
  }).observe(count, { childList: true, characterData: true, subtree: true });
}

/** Shows or folds the navigation bar (the Find button); remembered. `focusSearch`: open it and put the cursor in the search. */
export function toggleNav(focusSearch = false): void {
  const open = focusSearch ? true : !navOpen();
  patchState({ navOpen: open } satisfies LayoutState);
  applyNav();
  fitToolbar();
  if (focusSearch) byId('nav-search')?.focus();
  else announce(open ? 'Search and filters shown' : 'Search and filters folded');
}

// ---------------------------------------------------------------------------------------------- transcript

/**
 * Marks all but the last {@link TRANSCRIPT_TAIL} turns of `transcript` hidden (unless the researcher chose to see
 * them all) and puts a toggle before them. The hidden turns stay in the page (find, copy), only not drawn.
 */
export function collapseTranscript(transcript: HTMLElement): void {
  const turns = [...transcript.querySelectorAll<HTMLElement>(':scope > .turn')];
  transcript.querySelector(':scope > .transcript-toggle')?.remove();
  if (turns.length <= TRANSCRIPT_TAIL) return;
  const all = state().transcriptAll === true;
  const earlier = turns.length - TRANSCRIPT_TAIL;
  turns.forEach((t, i) => (t.hidden = !all && i < earlier));
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'transcript-toggle link-button';
  button.setAttribute('aria-expanded', String(all));
  button.textContent = all ? `Show only the last ${TRANSCRIPT_TAIL} turns (T)` : `Show all ${turns.length} turns (${earlier} earlier) (T)`;
  button.addEventListener('click', () => toggleTranscript());
  transcript.prepend(button);
}

/** Whole transcript or its last turns (the transcript's button, `T`); remembered. */
export function toggleTranscript(): void {
  patchState({ transcriptAll: !(state().transcriptAll === true) } satisfies LayoutState);
  const t = byId('transcript');
  if (t) {
    const hadFocus = document.activeElement?.classList.contains('transcript-toggle');
    collapseTranscript(t);
    if (hadFocus) t.querySelector<HTMLElement>('.transcript-toggle')?.focus();
  }
}

// ---------------------------------------------------------------------------------------------- toolbar

let menuOpen = false;

function toolbarButtons(): HTMLElement[] {
  return COLLAPSE_ORDER.map((sel) => document.querySelector<HTMLElement>(sel)).filter((b): b is HTMLElement => !!b);
}

function closeMenu(focusMore = false): void {
  const menu = byId('toolbar-menu');
  const more = byId('toolbar-more');
  menuOpen = false;
  if (menu) menu.hidden = true;
  more?.setAttribute('aria-expanded', 'false');
  if (focusMore) more?.focus();
}

function openMenu(): void {
  const menu = byId('toolbar-menu');
  const more = byId('toolbar-more');
  if (!menu || !more) return;
  // In the toolbar's order, as the buttons were.
  const collapsed = [...document.querySelectorAll<HTMLElement>('#toolbar-actions .collapsed')];
  menu.replaceChildren(
    ...collapsed.map((b) => {
      const item = document.createElement('button');
      item.type = 'button';
      item.setAttribute('role', 'menuitem');
      item.tabIndex = -1;
      item.dataset.for = b.id;
      item.textContent = (b.textContent ?? '').trim();
      const pressed = b.getAttribute('aria-pressed');
      if (pressed !== null) {
        item.setAttribute('role', 'menuitemcheckbox');
        item.setAttribute('aria-checked', pressed);
      }
      if (b.title) item.title = b.title;
      item.addEventListener('click', () => {
        closeMenu(true);
        b.click();
      });
      return item;
    }),
  );
  const r = more.getBoundingClientRect();
  menu.style.top = `${Math.round(r.bottom + 2)}px`;
  menu.style.right = `${Math.max(4, Math.round(window.innerWidth - r.right))}px`;
  menu.hidden = false;
  menuOpen = true;
  more.setAttribute('aria-expanded', 'true');
  menu.querySelector<HTMLElement>('[role^="menuitem"]')?.focus();
}

function initMenu(): void {
  const menu = byId('toolbar-menu');
  const more = byId('toolbar-more');
  if (!menu || !more) return;
  more.addEventListener('click', () => (menuOpen ? closeMenu() : openMenu()));
  more.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      openMenu();
    }
  });
  menu.addEventListener('keydown', (e) => {
    const items = [...menu.querySelectorAll<HTMLElement>('[role^="menuitem"]')];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => items[(i + items.length) % items.length]?.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(items.length - 1);
    else if (e.key === 'Escape' || e.key === 'Tab') closeMenu(e.key === 'Escape');
    else if (e.key === 'Enter' || e.key === ' ') (document.activeElement as HTMLElement | null)?.click();
    else return;
    if (e.key !== 'Tab') e.preventDefault();
    e.stopPropagation();
  });
  document.addEventListener('pointerdown', (e) => {
    if (menuOpen && !(e.target as Element).closest('#toolbar-menu, #toolbar-more')) closeMenu();
  });
}

/**
 * Moves toolbar buttons into the overflow menu, least used first, until the toolbar fits on one line; brings them
 * back when there is room. Runs on every size change of the toolbar.
 */
export function fitToolbar(): void {
  const toolbar = byId('toolbar');
  const more = byId('toolbar-more');
  if (!toolbar || !more) return;
  const buttons = toolbarButtons();
  for (const b of buttons) b.classList.remove('collapsed');
  more.classList.add('collapsed');
  const overflows = () => toolbar.scrollWidth > toolbar.clientWidth + 1;
  if (overflows()) {
    more.classList.remove('collapsed');
    for (const b of buttons) {
      if (!overflows()) break;
      b.classList.add('collapsed');
    }
  }
  toolbar.dataset.collapsed = String(buttons.filter((b) => b.classList.contains('collapsed')).length);
  if (menuOpen) closeMenu();
}

// ---------------------------------------------------------------------------------------------- keys

/**
 * Layout keys, handled in the webview (VS Code has no binding for them): `L` shows or hides the item list, `T` the
 * whole transcript, `/` opens the navigation bar with the cursor in its search. Not while typing in a field.
 */
function onKey(e: KeyboardEvent): void {
  if (e.ctrlKey || e.metaKey || e.altKey || (e.target as HTMLElement).closest('input, textarea, select, [role="menu"]')) return;
  const k = e.key.toLowerCase();
  if (k === 'l') toggleList();
  else if (k === 't') toggleTranscript();
  else if (k === '/') {
    e.preventDefault();
    toggleNav(true);
  }
}

/**
 * Wires the layout: splitter, list toggle, transcript keys, toolbar overflow. `onList` runs after the list's width
 * or visibility changed (main.ts re-renders its rows).
 */
export function initLayout(vscodeApi: VsCodeState, onList: () => void): void {
  api = vscodeApi;
  onListChange = onList;
  initSplitter();
  initMenu();
  byId('toggle-list')?.addEventListener('click', () => toggleList());
  byId('toggle-nav')?.addEventListener('click', () => toggleNav());
  window.addEventListener('keydown', onKey);
  applyList();
  applyNav();
  // navigator.ts builds its bar after this: fold it as soon as it is there.
  if (byId('navigator')) watchCount();
  else if ('MutationObserver' in window) {
    const watch = new MutationObserver(() => {
      if (!byId('navigator')) return;
      watch.disconnect();
      applyNav();
      watchCount();
    });
    watch.observe(document.body, { childList: true });
  }
  const toolbar = byId('toolbar');
  if (toolbar && 'ResizeObserver' in window) new ResizeObserver(() => fitToolbar()).observe(toolbar);
  window.addEventListener('resize', () => {
    applyList();
    applyNav();
    fitToolbar();
  });
  fitToolbar();
}
