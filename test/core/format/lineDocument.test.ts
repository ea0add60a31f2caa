import assert from 'node:assert/strict';
import { LineDocument } from '../../../src/core/format/lineDocument';
import { LineText } from '../../../src/core/format/lineText';

const text = (s: string) => LineText.fromBytes(Buffer.from(s));

describe('LineDocument (the dialogue editor’s undo stack and saved point)', () => {
  it('an edit makes it dirty; undo takes the text back and makes it clean; redo makes it dirty again', () => {
    const d = new LineDocument(text('a\nb\nc\n'));
    assert.equal(d.isDirty, false);
    const e = d.edit([{ line: 1, text: 'B' }])!;
    assert.equal(d.text.getText(), 'a\nB\nc\n');
    assert.equal(d.isDirty, true);
    assert.deepEqual(e.undo(), [{ line: 1, text: 'b' }]);
    assert.equal(d.text.getText(), 'a\nb\nc\n');
    assert.equal(d.isDirty, false);
    assert.deepEqual(e.redo(), [{ line: 1, text: 'B' }]);
    assert.equal(d.isDirty, true);
  });

  it('leaves out lines already so, and makes no edit when none changes', () => {
    const d = new LineDocument(text('a\nb\n'));
    assert.equal(d.edit([{ line: 0, text: 'a' }]), undefined);
    assert.deepEqual(d.edit([{ line: 0, text: 'a' }, { line: 1, text: 'x' }])!.changed, [{ line: 1, text: 'x' }]);
    assert.equal(d.version, 2);
  });

  it('is clean at the saved point and dirty on either side of it', () => {
    const d = new LineDocument(text('a\nb\n'));
    const first = d.edit([{ line: 0, text: '1' }])!;
    const second = d.edit([{ line: 1, text: '2' }])!;
    d.markSaved();
    assert.equal(d.isDirty, false);
    second.undo();
    assert.equal(d.isDirty, true, 'undone past the save');
    second.redo();
    assert.equal(d.isDirty, false, 'back at the save');
    second.undo();
    first.undo();
    assert.equal(d.text.getText(), 'a\nb\n');
    assert.equal(d.isDirty, true, 'the original text is not what the file holds now');
  });

  it('an edit made while the file was written stays unsaved (the save marks the top it wrote)', () => {
    const d = new LineDocument(text('a\nb\n'));
    d.edit([{ line: 0, text: '1' }]);
    const written = d.stackTop;
    d.edit([{ line: 1, text: '2' }]);
    d.markSaved(written);
    assert.equal(d.isDirty, true);
  });

  it('a reload is in sync with the file, and an edit made before it does nothing when undone or redone', () => {
    const d = new LineDocument(text('a\nb\n'));
    const e = d.edit([{ line: 0, text: 'mine' }])!;
    const v = d.version;
    d.reload(text('disk\nb\nc\n'));
    assert.equal(d.isDirty, false);
    assert.ok(d.version > v);
    assert.equal(e.undo(), undefined);
    assert.equal(d.text.getText(), 'disk\nb\nc\n', 'the old inverse is not applied to the new text');
    assert.equal(e.redo(), undefined);
    assert.equal(d.text.getText(), 'disk\nb\nc\n');
  });

  it('a document restored from a backup is dirty until saved', () => {
    const d = new LineDocument(text('a\n'), false);
    assert.equal(d.isDirty, true);
    d.markSaved();
    assert.equal(d.isDirty, false);
  });

  it('the version increases with every change: edit, undo, redo, reload', () => {
    const d = new LineDocument(text('a\n'));
    const seen = [d.version];
    const e = d.edit([{ line: 0, text: 'b' }])!;
    seen.push(d.version);
    e.undo();
    seen.push(d.version);
    e.redo();
    seen.push(d.version);
    d.reload(text('c\n'));
    seen.push(d.version);
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
  });

  it('refuses a line out of range, changing nothing', () => {
    const d = new LineDocument(text('a\nb'));
    assert.throws(() => d.edit([{ line: 0, text: 'x' }, { line: 5, text: 'y' }]), RangeError);
    assert.equal(d.text.getText(), 'a\nb');
    assert.equal(d.isDirty, false);
  });
});
