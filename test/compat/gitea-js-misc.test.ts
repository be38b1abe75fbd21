// gitea-js, groups "miscellaneous" and "settings": every method of them forgekit serves, through the real client
// (anonymous: Gitea's miscellaneous routes need no sign-in or scope); status and shape checked.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { assertConforms, giteaClient, settle } from '../helpers/gitea-js.js';
import type { CommitStatusState } from 'gitea-js';

t.test('gitea-js miscellaneous and settings methods', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const anonymous = giteaClient(f);
  const user = await f.createUser({ username: 'gjs-misc' });
  // A token with one unrelated scope: miscellaneous routes demand none.
  const narrow = (await f.request('POST', '/users/gjs-misc/tokens', { basic: ['gjs-misc', user.password], json: { name: 'narrow', scopes: ['read:issue'] } })).json.sha1;
  const scoped = giteaClient(f, narrow);

  t.test('version', async (t) => {
    const v = await settle(anonymous.version.getVersion());
    t.equal(v.status, 200);
    t.match(v.data.version, /^1\.23\.0\+forgekit-/);
    assertConforms(t, 'getVersion', v.data);
    t.equal((await settle(scoped.version.getVersion())).status, 200);
  });

  t.test('markdown', async (t) => {
    // An HTML answer: gitea-js callers ask for it as text (its default format is JSON).
    const html = await settle(scoped.markdown.renderMarkdown({ Text: '**hi**', Mode: 'gfm' }, { format: 'text' }));
    t.equal(html.status, 200);
    t.match(html.data, '<strong>hi</strong>');
    assertConforms(t, 'renderMarkdown', html.data);
    const raw = await settle(scoped.markdown.renderMarkdownRaw('*x*' as unknown as CommitStatusState, { format: 'text' }));
    t.equal(raw.status, 200);
    t.match(raw.data, '<em>x</em>');
    assertConforms(t, 'renderMarkdownRaw', raw.data);
  });

  t.test('templates', async (t) => {
    const ignores = await settle(anonymous.gitignore.listGitignoresTemplates());
    t.equal(ignores.status, 200);
    t.ok(ignores.data.includes('Node'));
    assertConforms(t, 'listGitignoresTemplates', ignores.data);
    const node = await settle(anonymous.gitignore.getGitignoreTemplateInfo('Node'));
    t.equal(node.data.name, 'Node');
    assertConforms(t, 'getGitignoreTemplateInfo', node.data);
    t.equal((await settle(anonymous.gitignore.getGitignoreTemplateInfo('No-Such-Thing'))).status, 404);
    const licenses = await settle(anonymous.licenses.listLicenseTemplates());
    t.ok(licenses.data.some((l) => l.key === 'MIT'));
    assertConforms(t, 'listLicenseTemplates', licenses.data);
    const mit = await settle(anonymous.licenses.getLicenseTemplateInfo('MIT'));
    t.equal(mit.data.key, 'MIT');
    assertConforms(t, 'getLicenseTemplateInfo', mit.data);
  });

  t.test('instance settings', async (t) => {
    const api = await settle(anonymous.settings.getGeneralApiSettings());
    t.same(api.data, { default_git_trees_per_page: 1000, default_max_blob_size: 10485760, default_paging_num: 30, max_response_items: 50 });
    assertConforms(t, 'getGeneralApiSettings', api.data);
    const attachment = await settle(anonymous.settings.getGeneralAttachmentSettings());
    t.equal(attachment.data.enabled, false);
    assertConforms(t, 'getGeneralAttachmentSettings', attachment.data);
    const repo = await settle(anonymous.settings.getGeneralRepositorySettings());
    t.equal(repo.data.http_git_disabled, false);
    assertConforms(t, 'getGeneralRepositorySettings', repo.data);
    const ui = await settle(scoped.settings.getGeneralUiSettings());
    t.equal(ui.data.default_theme, 'gitea-auto');
    assertConforms(t, 'getGeneralUiSettings', ui.data);
  });
});
