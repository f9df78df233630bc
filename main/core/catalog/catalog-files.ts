/**
 * The workspace files that hold settings and catalogs, in the order they are loaded. A module of its
 * own, with no dependencies, so finding a workspace does not load the catalog schemas.
 */
export const CATALOG_FILES = ['promptforge.yaml', 'tools.yaml', 'models.yaml'] as const;

/** One of {@link CATALOG_FILES}. */
export type CatalogFileName = (typeof CATALOG_FILES)[number];
