// The releases plugin's in-memory counts of issue and comment attachments (plugins/releases/attachment-counts.ts).
import t from 'tap';
import { AttachmentCounts } from '../../plugins/releases/attachment-counts.js';

t.test('issues hold their own files, comments theirs; a release file is neither', async (t) => {
  const c = new AttachmentCounts();
  t.same(c.issuesHolding([1, 2, 3]), [], 'none known: nothing to ask about');
  c.move({ issueId: 2, commentId: 0 }, 1);
  c.move({ issueId: 2, commentId: 0 }, 1);
  c.move({ issueId: 3, commentId: 30 }, 1);
  c.move({}, 1); // a release's attachment
  t.same(c.issuesHolding([1, 2, 3]), [2], 'the comment\'s file is not its issue\'s own');
  t.same(c.commentsHolding([10, 30]), [30]);
  c.move({ issueId: 2, commentId: 0 }, -1);
  t.same(c.issuesHolding([2]), [2], 'one of two files left');
  c.move({ issueId: 2, commentId: 0 }, -1);
  c.move({ issueId: 3, commentId: 30 }, -1);
  t.same(c.issuesHolding([2]), []);
  t.same(c.commentsHolding([30]), []);
  c.move({ issueId: 4, commentId: 0 }, -1); // a bulk delete's row never counted: stays at nothing
  t.same(c.issuesHolding([4]), []);
});
