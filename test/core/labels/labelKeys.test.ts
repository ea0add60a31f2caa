import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isLabelAction, keyLabel, keysOf, LABEL_KEYS, labelOpOfKey } from '../../../src/core/labels/labelKeys';
import { LABEL_KEYS_WHEN } from '../../../src/extension/labelKeybindings';
import type { Annotation } from '../../../src/core/dialogue/types';

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
      assert.deepEqual(LABEL_KEYS.filter((k) => isLabelAction(k.action)).map((k) => k.action.kind).filter((k, i, a) => a.indexOf(k) === i), ['coherent', 'incoherent', 'clear', 'option', 'mostEvident']);
      assert.ok(!isLabelAction({ kind: 'nextUnlabelled' }));
    });
  });
});
