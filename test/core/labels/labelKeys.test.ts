import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_KEYBINDINGS, isLabelAction, keyActionOf, keyLabel, keysOf, LABEL_COMMANDS, labelOpOfKey, LEGACY_LABEL_COMMANDS, type EditorAction } from '../../../src/core/labels/labelKeys';
import { LABEL_KEYS_WHEN } from '../../../src/extension/labelKeybindings';
import type { Annotation } from '../../../src/core/dialogue/types';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));

describe('labelling keys', () => {
  it('are contributed to VS Code exactly as the default keybindings say, the rubric key as the argument', () => {
    const contributed = (pkg.contributes.keybindings as { command: string; key: string; when: string }[]).filter((k) => k.command.startsWith('reflectEval.label.'));
    const expected = DEFAULT_KEYBINDINGS.map((k) => ({ command: k.command, key: k.key, ...(k.args ? { args: k.args } : {}), when: LABEL_KEYS_WHEN }));
    assert.deepEqual(contributed, expected);
  });

  it('each have a contributed command with a title, shown in the palette only in the dialogue editor', () => {
    const commands = new Map((pkg.contributes.commands as { command: string; title: string }[]).map((c) => [c.command, c.title]));
    const palette = new Map((pkg.contributes.menus.commandPalette as { command: string; when: string }[]).map((m) => [m.command, m.when]));
    for (const k of LABEL_COMMANDS) {
      assert.equal(commands.get(k.command), k.title, k.command);
      assert.match(palette.get(k.command) ?? '', /activeCustomEditorId/);
    }
    assert.deepEqual([...commands.keys()].filter((c) => c.startsWith('reflectEval.label.')), LABEL_COMMANDS.map((k) => k.command), 'no label command but the generic ones');
  });

  it('has no key bound to two commands, and keeps every key of the MI preset before rubrics on the same key', () => {
    const keys = DEFAULT_KEYBINDINGS.map((k) => k.key);
    assert.equal(new Set(keys).size, keys.length);
    const before: [string, EditorAction][] = [
      ['y', { kind: 'coherent' }],
      ['n', { kind: 'incoherent' }],
      ...[1, 2, 3, 4, 5, 6].map((n): [string, EditorAction] => [String(n), { kind: 'option', n }]),
      ...[1, 2, 3, 4, 5, 6].map((n): [string, EditorAction] => [`shift+${n}`, { kind: 'mostEvident', n }]),
      ['backspace', { kind: 'clear' }],
      ['delete', { kind: 'clear' }],
      ['j', { kind: 'nextCandidate' }],
      ['down', { kind: 'nextCandidate' }],
      ['k', { kind: 'previousCandidate' }],
      ['up', { kind: 'previousCandidate' }],
      ['shift+j', { kind: 'nextItem' }],
      ['pagedown', { kind: 'nextItem' }],
      ['shift+k', { kind: 'previousItem' }],
      ['pageup', { kind: 'previousItem' }],
      ['u', { kind: 'nextUnlabelled' }],
    ];
    for (const [key, old] of before) {
      const binding = DEFAULT_KEYBINDINGS.find((k) => k.key === key)!;
      const action = LABEL_COMMANDS.find((c) => c.command === binding.command)!.action(binding.args);
      assert.deepEqual(action, isLabelAction(old) ? keyActionOf(old) : old, key);
    }
    // The old commands still run as the keys they were.
    for (const l of LEGACY_LABEL_COMMANDS) assert.ok(isLabelAction(l.action), l.command);
  });

  it('reads the key from a keybinding\'s arguments, and nothing else', () => {
    const key = LABEL_COMMANDS.find((c) => c.command === 'reflectEval.label.key')!;
    assert.deepEqual(key.action({ key: 'Y' }), { kind: 'key', key: 'y' });
    assert.deepEqual(key.action('3'), { kind: 'key', key: '3' });
    assert.equal(key.action(undefined), null);
    assert.equal(key.action({ key: 'yes' }), null);
  });

  it('names keys for the legend', () => {
    assert.equal(keyLabel('shift+1'), 'Shift+1');
    assert.equal(keyLabel('pagedown'), 'PgDn');
    assert.equal(keysOf('reflectEval.label.nextCandidate'), 'J / ↓');
    assert.equal(keysOf('reflectEval.label.key', { key: 'y' }), 'Y');
  });

  it('names the keys of the MI preset\'s commands before rubrics as the legend and tooltips showed them then', () => {
    // The legend's `Y coherent`, `N incoherent` and the chips' tooltips read these (webview/editor/main.ts).
    assert.equal(keysOf('reflectEval.label.coherent'), 'Y');
    assert.equal(keysOf('reflectEval.label.incoherent'), 'N');
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => keysOf(`reflectEval.label.option${n}`)), ['1', '2', '3', '4', '5', '6']);
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => keysOf(`reflectEval.label.mostEvident${n}`)), ['Shift+1', 'Shift+2', 'Shift+3', 'Shift+4', 'Shift+5', 'Shift+6']);
  });

  describe('labelOpOfKey: one rule for the host and the webview', () => {
    const yes: Annotation = { annotator: 'A', coherent: true };
    const no: Annotation = { annotator: 'A', coherent: false, errors: ['parroting'], mostEvidentError: 'parroting' };

    it('answers the coherence question whatever the label was', () => {
      for (const mine of [undefined, yes, no]) {
        assert.deepEqual(labelOpOfKey({ kind: 'coherent' }, mine), { op: { kind: 'coherence', coherent: true } });
        assert.deepEqual(labelOpOfKey({ kind: 'incoherent' }, mine), { op: { kind: 'coherence', coherent: false } });
        assert.deepEqual(labelOpOfKey({ kind: 'clear' }, mine), { op: { kind: 'coherence', coherent: null } });
      }
    });

    it('reads a number as empathy after Yes, as an error after No, and asks for the answer first otherwise', () => {
      assert.deepEqual(labelOpOfKey({ kind: 'option', n: 4 }, yes), { op: { kind: 'empathy', value: 4 } });
      assert.deepEqual(labelOpOfKey({ kind: 'option', n: 6 }, yes), { hint: 'The empathy scale is 1–5.' });
      assert.deepEqual(labelOpOfKey({ kind: 'option', n: 3 }, no), { op: { kind: 'toggleError', error: 'parroting' } });
      assert.deepEqual(labelOpOfKey({ kind: 'option', n: 6 }, no), { op: { kind: 'toggleError', error: 'other' } });
      assert.equal(labelOpOfKey({ kind: 'option', n: 7 }, no), null);
      assert.deepEqual(labelOpOfKey({ kind: 'option', n: 1 }, undefined), { hint: 'Answer first: Y coherent, N incoherent.' });
    });

    it('marks the most evident error, and unmarks it when pressed again', () => {
      assert.deepEqual(labelOpOfKey({ kind: 'mostEvident', n: 2 }, no), { op: { kind: 'mostEvidentError', error: 'dialogueContradicting' } });
      assert.deepEqual(labelOpOfKey({ kind: 'mostEvident', n: 3 }, no), { op: { kind: 'mostEvidentError', error: null } });
      // On a coherent label the mark is made (it answers No); never an unmark.
      assert.deepEqual(labelOpOfKey({ kind: 'mostEvident', n: 3 }, { ...yes, mostEvidentError: 'parroting' }), { op: { kind: 'mostEvidentError', error: 'parroting' } });
    });

    it('tells label keys from keys that move focus', () => {
      const kinds = DEFAULT_KEYBINDINGS.map((b) => LABEL_COMMANDS.find((c) => c.command === b.command)!.action(b.args)!).filter(isLabelAction).map((a) => a.kind);
      assert.deepEqual([...new Set(kinds)], ['key', 'mark', 'clear']);
      assert.ok(!isLabelAction({ kind: 'nextUnlabelled' }));
      assert.ok(!isLabelAction({ kind: 'nextQuestion' }));
    });
  });
});
