import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyLabel, keysOf, LABEL_KEYS, LABEL_KEYS_WHEN } from '../../../webview/editor/keys';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));

describe('labelling keys', () => {
  it('are contributed to VS Code exactly as the editor legend shows them', () => {
    const contributed = (pkg.contributes.keybindings as { command: string; key: string; when: string }[]).filter((k) => k.command.startsWith('reflectEval.label.'));
    const expected = LABEL_KEYS.flatMap((k) => k.keys.map((key) => ({ command: k.command, key, when: LABEL_KEYS_WHEN })));
    assert.deepEqual(contributed, expected);
  });

  it('each have a contributed command with a title, shown in the palette only in the dialogue editor', () => {
    const commands = new Map((pkg.contributes.commands as { command: string; title: string }[]).map((c) => [c.command, c.title]));
    const palette = new Map((pkg.contributes.menus.commandPalette as { command: string; when: string }[]).map((m) => [m.command, m.when]));
    for (const k of LABEL_KEYS) {
      assert.equal(commands.get(k.command), k.title, k.command);
      assert.match(palette.get(k.command) ?? '', /activeCustomEditorId/);
    }
  });

  it('has no key bound to two commands', () => {
    const keys = LABEL_KEYS.flatMap((k) => k.keys);
    assert.equal(new Set(keys).size, keys.length);
  });

  it('names keys for the legend', () => {
    assert.equal(keyLabel('shift+1'), 'Shift+1');
    assert.equal(keyLabel('pagedown'), 'PgDn');
    assert.equal(keysOf('reflectEval.label.nextCandidate'), 'J / ↓');
    assert.equal(keysOf('reflectEval.label.coherent'), 'Y');
  });
});
