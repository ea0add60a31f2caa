/** The dialogue editor's page: its toolbar, problem banner, item list, item and legend, filled by webview/editor/main.ts. */
import type { WebviewPage } from '../panels';

export const EDITOR_PAGE: WebviewPage = {
  title: 'ReflectEval',
  script: 'editor',
  style: 'editor',
  body: `<div id="toolbar" role="toolbar" aria-label="Dialogue editor">
  <button id="toggle-list" type="button" class="icon-button" aria-controls="item-list" aria-expanded="true" aria-label="Hide the item list (L)" title="Hide the item list (L)">☰</button>
  <button id="toggle-nav" type="button" class="icon-button" aria-controls="navigator" aria-expanded="true" title="Search, filters, order and progress (/)">Find</button>
  <span id="file"></span><span id="busy" class="muted" role="status"></span><span class="spacer"></span>
  <span id="mode" class="muted"></span>
  <span id="annotator" class="muted"></span>
  <span id="toolbar-actions">
  <vscode-button id="cmd-annotator" secondary title="Choose who you label as">Annotator…</vscode-button>
  <vscode-button id="cmd-blind" secondary aria-pressed="false" title="Hide origins, scores and the reference; shuffle candidates per annotator">Blind</vscode-button>
  <vscode-button id="cmd-compare" secondary aria-pressed="false" title="Show every annotator's labels (others' read-only)">Compare</vscode-button>
  <vscode-button id="cmd-generate" secondary title="Generate candidates for this file">Generate</vscode-button>
  <vscode-button id="cmd-judge" secondary title="Run a judge matrix on this file">Judge</vscode-button>
  <vscode-button id="cmd-correlation" secondary title="Show the correlation table beside the editor">Correlations</vscode-button>
  <vscode-button id="cmd-agreement" title="Show the agreement and meta-evaluation analyses">Analyses</vscode-button>
  </span>
  <button id="toolbar-more" type="button" class="icon-button collapsed" aria-haspopup="menu" aria-controls="toolbar-menu" aria-expanded="false" aria-label="More actions" title="More actions">⋯</button>
</div>
<div id="toolbar-menu" role="menu" aria-label="More actions" hidden></div>
<div id="problems" hidden></div>
<div id="layout">
  <div id="item-list" role="listbox" aria-label="Items" tabindex="0"><div id="item-list-spacer"></div><div id="item-list-rows"></div></div>
  <div id="splitter" role="separator" aria-orientation="vertical" aria-controls="item-list" aria-label="Resize the item list (arrow keys; Enter hides it)" tabindex="0"></div>
  <main id="item" aria-label="Selected item"></main>
</div>
<div id="announcer" class="sr-only" role="status" aria-live="polite"></div>
<div id="legend" role="note" aria-label="Labelling keys"></div>`,
};
