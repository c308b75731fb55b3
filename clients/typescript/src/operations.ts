/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** The six edge types of the knowledge graph. */
export type EdgeType =
  | 'CAUSED'
  | 'CONFLICTS_WITH'
  | 'LED_TO'
  | 'RELATED_TO'
  | 'SOLVED_BY'
  | 'USES';

/** The six entity types of the knowledge graph. */
export type EntityType =
  | 'CONCEPT'
  | 'DECISION'
  | 'ERROR'
  | 'PATTERN'
  | 'TECHNOLOGY'
  | 'USER_PREFERENCE';

/** What went wrong, as `extensions.code` and as the `code` of a mutation's error. */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'FORBIDDEN'
  | 'INTERNAL_SERVER_ERROR'
  | 'LIMIT_EXCEEDED'
  | 'NOT_FOUND'
  | 'OUTCOME_UNKNOWN'
  | 'UNAUTHENTICATED'
  | 'UNAVAILABLE';

/** What a memory records; decisions, errors, patterns … also carry an entity label in the graph. */
export type MemoryKind =
  | 'CONCEPT'
  | 'DECISION'
  | 'ERROR'
  | 'FACT'
  | 'ITEM'
  | 'NOTE'
  | 'PATTERN'
  | 'PREFERENCE'
  | 'RULE'
  | 'SUMMARY'
  | 'TECHNOLOGY'
  | 'TURN';

/** The recall budget: critical 3 items / 300 tokens, high 2 / 200, medium 1 / 100, low nothing. */
export type Priority =
  | 'CRITICAL'
  | 'HIGH'
  | 'LOW'
  | 'MEDIUM';

/** Whether a recalled memory is shown in full or as its compressed summary. */
export type RecallMode =
  | 'FULL'
  | 'SUMMARY';

/** How recall scores: `izanagi` and `hanzo` exactly as their sources, `hybrid` (default) vector, keyword and relation, weighed by the query's style. */
export type RecallProfile =
  | 'HANZO'
  | 'HYBRID'
  | 'IZANAGI';

/** Where a memory lives: this session, a project, or the user's long-term memory. */
export type Tier =
  | 'LONG_TERM'
  | 'PROJECT'
  | 'SESSION';

export type ComponentsFragment = { vector: number | null, keyword: number, recency: number, relation: number, time: number, period: number, carried: number };

export type NodeFragment = { id: string, name: string, type: EntityType, project: string | null, active: boolean };

export type ExplorerRecallQueryVariables = Exact<{
  query: string;
  priority: Priority;
  profile: RecallProfile;
  project?: string | number | null | undefined;
  session?: string | number | null | undefined;
}>;


export type ExplorerRecallQuery = { recall: { profile: string, items: Array<{ id: string, content: string, mode: RecallMode, tier: Tier, score: number, tokens: number, components: { vector: number | null, keyword: number, recency: number, relation: number, time: number, period: number, carried: number } }>, ranking: Array<{ id: string, content: string, tier: Tier, score: number, components: { vector: number | null, keyword: number, recency: number, relation: number, time: number, period: number, carried: number } }>, totals: { items: number, tokens: number, budgetItems: number, budgetTokens: number }, gates: { fullAbove: number, summaryAbove: number, ofTop: number } | null, weights: { vector: number, keyword: number, recency: number, relation: number, timeBoost: number, periodBoost: number, carry: number }, timings: { embedMs: number, queryMs: number, totalMs: number } | null } };

export type ExplorerMemoryQueryVariables = Exact<{
  id: string | number;
}>;


export type ExplorerMemoryQuery = { memory: { id: string, content: string, summary: string | null, tier: Tier, kind: MemoryKind | null, project: string | null, session: string | null, createdAt: string | null, relevance: number | null, accessCount: number, lastAccessedAt: string | null, tokens: number | null, archived: boolean, validFrom: string | null, validUntil: string | null, attributes: unknown, labels: Array<string>, entities: Array<{ id: string, name: string, type: EntityType, project: string | null, active: boolean }>, records: { id: string, name: string, type: EntityType, project: string | null, active: boolean } | null } | null };

export type ExplorerChainsQueryVariables = Exact<{
  project?: string | number | null | undefined;
}>;


export type ExplorerChainsQuery = { chains: Array<{ decision: { id: string, name: string, type: EntityType, project: string | null, active: boolean } | null, error: { id: string, name: string, type: EntityType, project: string | null, active: boolean }, fix: { id: string, name: string, type: EntityType, project: string | null, active: boolean } | null }> };

export type ExplorerEntitiesQueryVariables = Exact<{
  search?: string | null | undefined;
  project?: string | number | null | undefined;
}>;


export type ExplorerEntitiesQuery = { entities: { nodes: Array<{ id: string, name: string, type: EntityType, project: string | null, active: boolean }> } };

export type ExplorerTraceQueryVariables = Exact<{
  from: string | number;
  maxDepth: number;
}>;


export type ExplorerTraceQuery = { trace: Array<{ nodes: Array<{ id: string, name: string, type: EntityType, project: string | null, active: boolean }>, edges: Array<{ type: EdgeType, fromId: string, toId: string, note: string | null }> }> };

export type ExplorerTiersQueryVariables = Exact<{
  project?: string | number | null | undefined;
  session?: string | number | null | undefined;
}>;


export type ExplorerTiersQuery = { tierUsage: Array<{ tier: Tier, usedTokens: number, items: number, capacity: number, trigger: number, fill: number, project: string | null, session: string | null }> };

export type ExplorerAuditQueryVariables = Exact<{
  operations: Array<string> | string;
  after?: string | null | undefined;
}>;


export type ExplorerAuditQuery = { auditLog: { nodes: Array<{ id: string, at: string, operation: string, ids: Array<string>, detail: string | null }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type ExplorerSessionQueryVariables = Exact<{
  id: string | number;
}>;


export type ExplorerSessionQuery = { session: { id: string, project: string | null, status: string, startedAt: string | null, endedAt: string | null, transcript: Array<{ id: string, role: string, content: string, tokens: number, at: string | null, isSummary: boolean, position: number, ref: string | null }> } | null, memories: { nodes: Array<{ id: string, content: string, kind: MemoryKind | null, tier: Tier, createdAt: string | null, attributes: unknown }> } };

export type ExplorerScopesQueryVariables = Exact<{ [key: string]: never; }>;


export type ExplorerScopesQuery = { memories: { nodes: Array<{ project: string | null, session: string | null, tier: Tier }> }, auditLog: { nodes: Array<{ ids: Array<string>, detail: string | null, at: string }> } };

export type ExplorerStartQueryVariables = Exact<{ [key: string]: never; }>;


export type ExplorerStartQuery = { memories: { nodes: Array<{ id: string }> } };

export type ExplorerRememberMutationVariables = Exact<{
  content: string;
}>;


export type ExplorerRememberMutation = { remember:
    | { __typename: 'BadUserInputError', code: ErrorCode, message: string }
    | { __typename: 'LimitExceededError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'RememberSuccess' }
   };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ComponentsFragmentDoc = new TypedDocumentString(`
    fragment Components on ScoreComponents {
  vector
  keyword
  recency
  relation
  time
  period
  carried
}
    `, {"fragmentName":"Components"}) as unknown as TypedDocumentString<ComponentsFragment, unknown>;
export const NodeFragmentDoc = new TypedDocumentString(`
    fragment Node on Entity {
  id
  name
  type
  project
  active
}
    `, {"fragmentName":"Node"}) as unknown as TypedDocumentString<NodeFragment, unknown>;
export const ExplorerRecallDocument = new TypedDocumentString(`
    query ExplorerRecall($query: String!, $priority: Priority!, $profile: RecallProfile!, $project: ID, $session: ID) {
  recall(
    query: $query
    priority: $priority
    profile: $profile
    project: $project
    session: $session
  ) {
    profile
    items {
      id
      content
      mode
      tier
      score
      tokens
      components {
        ...Components
      }
    }
    ranking(first: 50) {
      id
      content
      tier
      score
      components {
        ...Components
      }
    }
    totals {
      items
      tokens
      budgetItems
      budgetTokens
    }
    gates {
      fullAbove
      summaryAbove
      ofTop
    }
    weights {
      vector
      keyword
      recency
      relation
      timeBoost
      periodBoost
      carry
    }
    timings {
      embedMs
      queryMs
      totalMs
    }
  }
}
    fragment Components on ScoreComponents {
  vector
  keyword
  recency
  relation
  time
  period
  carried
}`) as unknown as TypedDocumentString<ExplorerRecallQuery, ExplorerRecallQueryVariables>;
export const ExplorerMemoryDocument = new TypedDocumentString(`
    query ExplorerMemory($id: ID!) {
  memory(id: $id) {
    id
    content
    summary
    tier
    kind
    project
    session
    createdAt
    relevance
    accessCount
    lastAccessedAt
    tokens
    archived
    validFrom
    validUntil
    attributes
    labels
    entities {
      ...Node
    }
    records {
      ...Node
    }
  }
}
    fragment Node on Entity {
  id
  name
  type
  project
  active
}`) as unknown as TypedDocumentString<ExplorerMemoryQuery, ExplorerMemoryQueryVariables>;
export const ExplorerChainsDocument = new TypedDocumentString(`
    query ExplorerChains($project: ID) {
  chains(project: $project, first: 100) {
    decision {
      ...Node
    }
    error {
      ...Node
    }
    fix {
      ...Node
    }
  }
}
    fragment Node on Entity {
  id
  name
  type
  project
  active
}`) as unknown as TypedDocumentString<ExplorerChainsQuery, ExplorerChainsQueryVariables>;
export const ExplorerEntitiesDocument = new TypedDocumentString(`
    query ExplorerEntities($search: String, $project: ID) {
  entities(search: $search, project: $project, first: 20) {
    nodes {
      ...Node
    }
  }
}
    fragment Node on Entity {
  id
  name
  type
  project
  active
}`) as unknown as TypedDocumentString<ExplorerEntitiesQuery, ExplorerEntitiesQueryVariables>;
export const ExplorerTraceDocument = new TypedDocumentString(`
    query ExplorerTrace($from: ID!, $maxDepth: Int!) {
  trace(from: $from, direction: BOTH, maxDepth: $maxDepth) {
    nodes {
      ...Node
    }
    edges {
      type
      fromId
      toId
      note
    }
  }
}
    fragment Node on Entity {
  id
  name
  type
  project
  active
}`) as unknown as TypedDocumentString<ExplorerTraceQuery, ExplorerTraceQueryVariables>;
export const ExplorerTiersDocument = new TypedDocumentString(`
    query ExplorerTiers($project: ID, $session: ID) {
  tierUsage(project: $project, session: $session) {
    tier
    usedTokens
    items
    capacity
    trigger
    fill
    project
    session
  }
}
    `) as unknown as TypedDocumentString<ExplorerTiersQuery, ExplorerTiersQueryVariables>;
export const ExplorerAuditDocument = new TypedDocumentString(`
    query ExplorerAudit($operations: [String!]!, $after: String) {
  auditLog(filter: {operations: $operations}, first: 100, after: $after) {
    nodes {
      id
      at
      operation
      ids
      detail
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<ExplorerAuditQuery, ExplorerAuditQueryVariables>;
export const ExplorerSessionDocument = new TypedDocumentString(`
    query ExplorerSession($id: ID!) {
  session(id: $id) {
    id
    project
    status
    startedAt
    endedAt
    transcript {
      id
      role
      content
      tokens
      at
      isSummary
      position
      ref
    }
  }
  memories(filter: {session: $id, includeArchived: true}, first: 100) {
    nodes {
      id
      content
      kind
      tier
      createdAt
      attributes
    }
  }
}
    `) as unknown as TypedDocumentString<ExplorerSessionQuery, ExplorerSessionQueryVariables>;
export const ExplorerScopesDocument = new TypedDocumentString(`
    query ExplorerScopes {
  memories(filter: {tiers: [PROJECT, SESSION]}, first: 100) {
    nodes {
      project
      session
      tier
    }
  }
  auditLog(filter: {operations: ["start_session"]}, first: 100) {
    nodes {
      ids
      detail
      at
    }
  }
}
    `) as unknown as TypedDocumentString<ExplorerScopesQuery, ExplorerScopesQueryVariables>;
export const ExplorerStartDocument = new TypedDocumentString(`
    query ExplorerStart {
  memories(first: 1) {
    nodes {
      id
    }
  }
}
    `) as unknown as TypedDocumentString<ExplorerStartQuery, ExplorerStartQueryVariables>;
export const ExplorerRememberDocument = new TypedDocumentString(`
    mutation ExplorerRemember($content: String!) {
  remember(input: {content: $content, tier: LONG_TERM}) {
    __typename
    ... on UserError {
      code
      message
    }
  }
}
    `) as unknown as TypedDocumentString<ExplorerRememberMutation, ExplorerRememberMutationVariables>;