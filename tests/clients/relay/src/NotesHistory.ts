// The list of notes paged backward (last/before), which relay-compiler accepts only on a connection that takes
// them and whose PageInfo has hasPreviousPage and startCursor.
import { graphql } from "relay-runtime";

export const notesHistory = graphql`
  fragment NotesHistory_query on Query
  @refetchable(queryName: "NotesHistoryPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 20 }, cursor: { type: "String" }) {
    notes(last: $count, before: $cursor) @connection(key: "NotesHistory_notes") {
      edges {
        node { id slug title updatedAt }
      }
    }
  }
`;
