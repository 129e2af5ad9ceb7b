// A note's backlinks, paged forward as relay's usePaginationFragment does: @connection on a Relay connection,
// @refetchable through Query.node, the page size and cursor as @argumentDefinitions.
import { graphql } from "relay-runtime";

export const noteBacklinks = graphql`
  fragment NoteBacklinks_note on Note
  @refetchable(queryName: "NoteBacklinksPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 10 }, cursor: { type: "String" }) {
    title
    backlinks(first: $count, after: $cursor) @connection(key: "NoteBacklinks_backlinks") {
      totalCount
      edges {
        node {
          id
          type
          context
          from { id title }
        }
      }
    }
  }
`;
