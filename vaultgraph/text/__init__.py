"""Pure text functions: the wikilink/#tag parser, link resolution and slugify. No I/O."""
