// The GraphQL documents the explorer sends. Only fields of the stable core schema appear here; features that
// arrive later (search, enrichment, uploads, suggestions) build their documents from `Capabilities`.

const BASE_FIELDS = "__typename id title scope agentId teamId";
const DOCUMENT_ONLY = "path docType summary category enrichment { stage error updatedAt } updatedAt";
const NOTE_ONLY = "slug kind tags indexed noteDate pinned updatedAt";

/** Fields of an Item (the interface): what the list, the graph and the detail header need. */
export const ITEM_FIELDS = `${BASE_FIELDS} ... on Document { ${DOCUMENT_ONLY} } ... on Note { ${NOTE_ONLY} }`;
export const DOCUMENT_FIELDS = `${BASE_FIELDS} ${DOCUMENT_ONLY}`;
export const NOTE_FIELDS = `${BASE_FIELDS} ${NOTE_ONLY}`;

/** The item fields valid inside a selection on `typeName` (an object type cannot take the other type's fragment). */
export function itemFieldsFor(typeName: string): string {
  return typeName === "Document" ? DOCUMENT_FIELDS : typeName === "Note" ? NOTE_FIELDS : ITEM_FIELDS;
}

const LINK_OWN_FIELDS = "id type ref label heading context origin confidence isGhost createdAt";
export const LINK_FIELDS = `${LINK_OWN_FIELDS} from { __typename id title } to { __typename id title }`;
// In an item's own lists one end is the item itself, so only the other end is asked for.
const OUTGOING_FIELDS = `${LINK_OWN_FIELDS} to { __typename id title }`;
const BACKLINK_FIELDS = `${LINK_OWN_FIELDS} from { __typename id title }`;

export const LIST_DOCUMENTS = `query ListDocuments($first: Int, $after: String, $scope: Scope, $agentId: String, $teamId: String) {
  documents(first: $first, after: $after, scope: $scope, agentId: $agentId, teamId: $teamId) {
    totalCount pageInfo { hasNextPage endCursor } nodes { ${DOCUMENT_FIELDS} }
  }
}`;

export const LIST_NOTES = `query ListNotes($first: Int, $after: String, $scope: Scope) {
  notes(first: $first, after: $after, scope: $scope) {
    totalCount pageInfo { hasNextPage endCursor } nodes { ${NOTE_FIELDS} }
  }
}`;

export const ITEM_DETAIL = `query ItemDetail($id: ID!) {
  node(id: $id) {
    ... on Item {
      ${ITEM_FIELDS}
      outgoing(first: 100) { totalCount nodes { ${OUTGOING_FIELDS} } }
      backlinks(first: 100) { totalCount nodes { ${BACKLINK_FIELDS} } }
    }
    ... on Document { contentHash sizeBytes createdAt }
    ... on Note { body bodySha256 frontmatter createdAt archivedAt createdByAgentId }
  }
}`;

export const NOTE_FOR_EDIT = `query NoteForEdit($id: ID!) {
  node(id: $id) { ... on Note { ${NOTE_FIELDS} body bodySha256 } }
}`;

/** A text document for the editor: its file's text. */
export const DOCUMENT_FOR_EDIT = `query DocumentForEdit($id: ID!) {
  node(id: $id) { ... on Document { ${DOCUMENT_FIELDS} content contentHash } }
}`;

/** A document's new title and text (updateDocument rewrites its file, unless it no longer holds the text read: CONFLICT). */
export const UPDATE_DOCUMENT = `mutation UpdateDocument($id: ID!, $input: DocumentUpdateInput!) {
  updateDocument(id: $id, input: $input) { ${DOCUMENT_FIELDS} contentHash }
}`;

/** Unresolved [[refs]] for the graph's ghost nodes (graph.ts syncGhosts). */
export const GHOSTS = `query Ghosts($first: Int!) { ghosts(first: $first) { ref text links sources { id } } }`;

export const GRAPH_VIEW = `query GraphView($center: ID, $hops: Int!, $limit: Int!, $direction: Direction! = BOTH,
    $linkTypes: [String!]) {
  graph(center: $center, hops: $hops, limit: $limit, direction: $direction, linkTypes: $linkTypes) {
    truncated edgesTruncated
    nodes { ${ITEM_FIELDS} }
    edges { id type origin confidence from { id } to { id } }
  }
}`;

export const SHORTEST_PATH = `query ShortestPath($from: ID!, $to: ID!, $direction: Direction! = BOTH, $linkTypes: [String!]) {
  shortestPath(from: $from, to: $to, maxHops: 5, direction: $direction, linkTypes: $linkTypes) {
    length nodes { ${ITEM_FIELDS} } links { id type origin from { id } to { id } }
  }
}`;

export const CREATE_LINK = `mutation CreateLink($input: LinkInput!) {
  createLink(input: $input) { ${LINK_FIELDS} }
}`;

export const DELETE_LINK = `mutation DeleteLink($id: ID!) { deleteLink(id: $id) { id deleted } }`;

export const SAVE_NOTE = `mutation SaveNote($input: NoteInput!) {
  saveNote(input: $input) {
    created changed indexed linksAdded linksRemoved
    note { ${NOTE_FIELDS} body bodySha256 }
  }
}`;

export const CAPTURE_NOTE = `mutation CaptureNote($text: String!) {
  captureNote(text: $text) { ${NOTE_FIELDS} body bodySha256 }
}`;

export const NOTE_TITLES = `query NoteTitles($first: Int, $after: String) {
  notes(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { id title slug kind } }
}`;

export const LINK_TYPES = [
  "REFERENCES", "DEPENDS_ON", "EXTENDS", "RELATED", "SUPERSEDES", "CONTRADICTS",
  "MENTIONS", "DERIVED_FROM", "CHILD_OF",
];
