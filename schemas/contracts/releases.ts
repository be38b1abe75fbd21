// The `releases` plugin's service as other plugins see it: whether a tag carries a release (the contents plugin
// refuses to delete such a tag directly, as Gitea does: the release must go first).

export interface ReleasesService {
  /** Whether the repository has a release (draft or published) on the tag `tagName`. */
  hasReleaseOnTag(repoId: number, tagName: string): Promise<boolean>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    releases: ReleasesService;
  }
}
