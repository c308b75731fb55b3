export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** Date with time (isoformat) */
  DateTime: { input: string; output: string; }
  /** The `JSON` scalar type represents JSON values as specified by [ECMA-404](https://ecma-international.org/wp-content/uploads/ECMA-404_2nd_edition_december_2017.pdf). */
  JSON: { input: unknown; output: unknown; }
};

export type ApiKey = {
  __typename?: 'ApiKey';
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  id: Scalars['ID']['output'];
  revoked: Scalars['Boolean']['output'];
  revokedAt?: Maybe<Scalars['DateTime']['output']>;
  role: Role;
  user: Scalars['ID']['output'];
};

export type ApiKeyCreated = {
  __typename?: 'ApiKeyCreated';
  key: ApiKey;
  /** The key itself: shown this once, stored only as its SHA-256. */
  secret: Scalars['String']['output'];
};

export type ApiKeyRevoked = {
  __typename?: 'ApiKeyRevoked';
  key: ApiKey;
};

export type AppendTurnInput = {
  content: Scalars['String']['input'];
  /** The turn's structure in its host (an Agents SDK item …), as the text of a JSON object: kept beside `content`, scrubbed of secrets as it is, and given back by `transcript` exactly. Summaries, facts and recall read `content` only. */
  item?: InputMaybe<Scalars['String']['input']>;
  project?: InputMaybe<Scalars['ID']['input']>;
  /** The caller's own id for the turn. */
  ref?: InputMaybe<Scalars['String']['input']>;
  /** Who spoke: user, assistant, tool … */
  role: Scalars['String']['input'];
  session: Scalars['ID']['input'];
};

export type AppendTurnPayload = BadUserInputError | LimitExceededError | NotFoundError | TurnAppended;

export type Architecture = {
  __typename?: 'Architecture';
  decisions: Array<ArchitectureDecision>;
  pattern?: Maybe<Scalars['String']['output']>;
};

export type ArchitectureDecision = {
  __typename?: 'ArchitectureDecision';
  date?: Maybe<Scalars['String']['output']>;
  decision: Scalars['String']['output'];
  id: Scalars['String']['output'];
  reason?: Maybe<Scalars['String']['output']>;
};

/** The context window, section by section, each within its budget. */
export type AssembledContext = {
  __typename?: 'AssembledContext';
  sections: Array<ContextSection>;
  tokens: Scalars['Int']['output'];
  window: Scalars['Int']['output'];
};

/** One read or write: what was done, to which ids, when. */
export type AuditEvent = {
  __typename?: 'AuditEvent';
  at: Scalars['DateTime']['output'];
  detail?: Maybe<Scalars['String']['output']>;
  id: Scalars['ID']['output'];
  ids: Array<Scalars['ID']['output']>;
  operation: Scalars['String']['output'];
};

export type AuditEventConnection = {
  __typename?: 'AuditEventConnection';
  nodes: Array<AuditEvent>;
  pageInfo: PageInfo;
};

export type AuditFilter = {
  /** remember, recall, forget, export … */
  operations?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Events at or after this time. A time without a zone is UTC; a UTC offset past ±18:00 is refused. */
  since?: InputMaybe<Scalars['DateTime']['input']>;
  /** Events before this time, read as `since` is. */
  until?: InputMaybe<Scalars['DateTime']['input']>;
};

/** The input is not acceptable (wrong form, too long, breaks a rule). */
export type BadUserInputError = UserError & {
  __typename?: 'BadUserInputError';
  code: ErrorCode;
  field?: Maybe<Scalars['String']['output']>;
  message: Scalars['String']['output'];
};

/** decision -CAUSED-> error -SOLVED_BY-> fix; either end may be missing, never both. */
export type Chain = {
  __typename?: 'Chain';
  decision?: Maybe<Entity>;
  error: Entity;
  fix?: Maybe<Entity>;
};

/** What a write compressed to make room. */
export type CompressionReport = {
  __typename?: 'CompressionReport';
  archived: Array<Scalars['ID']['output']>;
  deleted: Array<Scalars['ID']['output']>;
  steps: Array<Scalars['String']['output']>;
  summarised: Array<Scalars['ID']['output']>;
};

export type ConsolidateInput = {
  /** The moment decay is measured from (default: now; at most a day from the server's clock). A time without a zone is UTC; a UTC offset past ±18:00 is refused. */
  now?: InputMaybe<Scalars['DateTime']['input']>;
};

export type ConsolidatePayload = BadUserInputError | Consolidated | LimitExceededError | NotFoundError;

/** What consolidation did to the caller's memory. */
export type Consolidated = {
  __typename?: 'Consolidated';
  decayed: Scalars['Int']['output'];
  generalised: Array<Scalars['ID']['output']>;
  merged: Array<Merge>;
  promoted: Array<Promotion>;
  skipped: Array<Scalars['String']['output']>;
};

/** One memory a decision's recall returned: as it read then, or only when it was erased. */
export type ContextMemory = {
  __typename?: 'ContextMemory';
  /** When it was erased; null while it is kept. */
  erasedAt?: Maybe<Scalars['DateTime']['output']>;
  id: Scalars['ID']['output'];
  /** As it read when the decision was recorded; null once erased. */
  memory?: Maybe<Memory>;
};

export type ContextPiece = {
  __typename?: 'ContextPiece';
  id?: Maybe<Scalars['ID']['output']>;
  text: Scalars['String']['output'];
  tokens: Scalars['Int']['output'];
};

export type ContextSection = {
  __typename?: 'ContextSection';
  budget: Scalars['Int']['output'];
  pieces: Array<ContextPiece>;
  section: ContextSectionName;
  text: Scalars['String']['output'];
  tokens: Scalars['Int']['output'];
};

/** The context window's sections, in order (Hanzo's budget table). */
export type ContextSectionName =
  | 'CONVERSATION_HISTORY'
  | 'CURRENT_QUERY'
  | 'GENERATION_HEADROOM'
  | 'GLOBAL_MEMORY'
  | 'PROJECT_MEMORY'
  | 'RETRIEVED_CONTEXT'
  | 'SYSTEM_PROMPT'
  | 'TOOL_DEFINITIONS';

export type CreateApiKeyInput = {
  role?: Role;
  user: Scalars['ID']['input'];
};

export type CreateApiKeyPayload = ApiKeyCreated | BadUserInputError | LimitExceededError | NotFoundError;

/** What informed a decision: the recall it names and what that recall returned. */
export type DecisionContext = {
  __typename?: 'DecisionContext';
  memories: Array<ContextMemory>;
  /** The recall's audit event (RecallResult.recallId). */
  recallId: Scalars['ID']['output'];
  /** When the decision was recorded: the moment the memories are read as of. */
  recordedAt: Scalars['DateTime']['output'];
};

/** Which edges to follow from a node. */
export type Direction =
  | 'BOTH'
  | 'IN'
  | 'OUT';

export type DocumentExported = {
  __typename?: 'DocumentExported';
  document: Scalars['JSON']['output'];
  kind: DocumentKind;
};

export type DocumentImported = {
  __typename?: 'DocumentImported';
  created: Array<Scalars['ID']['output']>;
  entries: Scalars['Int']['output'];
  kind: DocumentKind;
  redacted: Array<Scalars['String']['output']>;
  removed: Array<Scalars['ID']['output']>;
  reused: Array<Scalars['ID']['output']>;
  scopeId: Scalars['String']['output'];
};

/** Which Izanagi document: session, project-memory.json or long-term-memory.json. */
export type DocumentKind =
  | 'LONG_TERM'
  | 'PROJECT'
  | 'SESSION';

/** A directed knowledge-graph edge. */
export type Edge = {
  __typename?: 'Edge';
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  from?: Maybe<Entity>;
  fromId: Scalars['ID']['output'];
  note?: Maybe<Scalars['String']['output']>;
  to?: Maybe<Entity>;
  toId: Scalars['ID']['output'];
  type: EdgeType;
};

/** The six edge types of the knowledge graph. */
export type EdgeType =
  | 'CAUSED'
  | 'CONFLICTS_WITH'
  | 'LED_TO'
  | 'RELATED_TO'
  | 'SOLVED_BY'
  | 'USES';

export type EndSessionInput = {
  id: Scalars['ID']['input'];
};

export type EndSessionPayload = BadUserInputError | LimitExceededError | NotFoundError | SessionEnded;

/** A node of the knowledge graph: a decision, error, pattern, technology, concept or preference. */
export type Entity = {
  __typename?: 'Entity';
  /** False once a newer fact closed it (validUntil set). */
  active: Scalars['Boolean']['output'];
  attributes?: Maybe<Scalars['JSON']['output']>;
  /** What informed this decision, when it was recorded with `informedBy`: the memories that recall returned, as they read when the decision was recorded (even if edited since); one forgotten since shows only when it was erased. Null for an entity no recall informed. */
  context?: Maybe<DecisionContext>;
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  /** Knowledge-graph edges touching this entity. */
  edges: Array<Edge>;
  id: Scalars['ID']['output'];
  /** Memories that mention or record this entity, newest first (at most 100). */
  memories: Array<Memory>;
  name: Scalars['String']['output'];
  /** The project it belongs to; null for the user's long-term entities. */
  project?: Maybe<Scalars['String']['output']>;
  type: EntityType;
  validFrom?: Maybe<Scalars['DateTime']['output']>;
  validUntil?: Maybe<Scalars['DateTime']['output']>;
};


/** A node of the knowledge graph: a decision, error, pattern, technology, concept or preference. */
export type EntityEdgesArgs = {
  direction?: Direction;
  types?: InputMaybe<Array<EdgeType>>;
};


/** A node of the knowledge graph: a decision, error, pattern, technology, concept or preference. */
export type EntityMemoriesArgs = {
  first?: Scalars['Int']['input'];
};

export type EntityConnection = {
  __typename?: 'EntityConnection';
  nodes: Array<Entity>;
  pageInfo: PageInfo;
};

/** The six entity types of the knowledge graph. */
export type EntityType =
  | 'CONCEPT'
  | 'DECISION'
  | 'ERROR'
  | 'PATTERN'
  | 'TECHNOLOGY'
  | 'USER_PREFERENCE';

/** How many of one label or relationship type an erasure removed. */
export type ErasedCount = {
  __typename?: 'ErasedCount';
  count: Scalars['Int']['output'];
  name: Scalars['String']['output'];
};

/** One count of a receipt, as `ErasedCount` gave it. */
export type ErasedCountInput = {
  count: Scalars['Int']['input'];
  name: Scalars['String']['input'];
};

/** A receipt checked against the live store. */
export type ErasureCheck = {
  __typename?: 'ErasureCheck';
  /** True when the receipt is intact and nothing it names remains. */
  erased: Scalars['Boolean']['output'];
  /** The ids are the ones the digest was made of. */
  intact: Scalars['Boolean']['output'];
  /** Ids of the receipt still held by a node or version. */
  remaining: Array<Scalars['ID']['output']>;
  /** For a user's erasure, what of them is anywhere, by where it was found: nodes, users, relationships, memoryText and entityName (full-text entries), vectors (the vector index); each 0 when erased. */
  userRemains: Array<ErasedCount>;
};

/** What an erasure removed, and nothing of what it said: keep it, and check it later against the store with `verifyErasure` (or `hippograph forget verify RECEIPT.json`). The digest is the SHA-256 of the ids, sorted, one per line. */
export type ErasureReceipt = {
  __typename?: 'ErasureReceipt';
  at: Scalars['DateTime']['output'];
  digest: Scalars['String']['output'];
  /** The ids of the nodes removed, sorted. */
  ids: Array<Scalars['ID']['output']>;
  /** Nodes removed per label (MemoryVersion: earlier texts). */
  nodes: Array<ErasedCount>;
  /** Relationships removed per type. */
  relationships: Array<ErasedCount>;
  /** memory, entity, turn, session, project or user. */
  scope: Scalars['String']['output'];
  scopeId: Scalars['ID']['output'];
  /** The audit event that records the erasure. */
  tombstoneId: Scalars['ID']['output'];
  userId: Scalars['ID']['output'];
};

/** A receipt as an erasure answered it (`ErasureReceipt`, every field). */
export type ErasureReceiptInput = {
  at: Scalars['DateTime']['input'];
  digest: Scalars['String']['input'];
  ids: Array<Scalars['ID']['input']>;
  nodes: Array<ErasedCountInput>;
  relationships: Array<ErasedCountInput>;
  scope: Scalars['String']['input'];
  scopeId: Scalars['ID']['input'];
  tombstoneId: Scalars['ID']['input'];
  userId: Scalars['ID']['input'];
};

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

export type ErrorHistoryEntry = {
  __typename?: 'ErrorHistoryEntry';
  count?: Maybe<Scalars['Int']['output']>;
  error: Scalars['String']['output'];
  fix?: Maybe<Scalars['String']['output']>;
  lastSeen?: Maybe<Scalars['String']['output']>;
};

/** A project document needs `project`, a session document `session`. */
export type ExportDocumentInput = {
  kind: DocumentKind;
  project?: InputMaybe<Scalars['ID']['input']>;
  session?: InputMaybe<Scalars['ID']['input']>;
};

export type ExportDocumentPayload = BadUserInputError | DocumentExported | LimitExceededError | NotFoundError;

/** Exactly one of `memory`, `entity` or `turn`. */
export type ForgetInput = {
  entity?: InputMaybe<Scalars['ID']['input']>;
  memory?: InputMaybe<Scalars['ID']['input']>;
  /** A turn of a transcript, with the facts extracted from it; a summary with the turns it covers. A turn a summary covers goes only with that summary. */
  turn?: InputMaybe<Scalars['ID']['input']>;
};

export type ForgetPayload = BadUserInputError | ForgetSuccess | LimitExceededError | NotFoundError;

export type ForgetProjectInput = {
  id: Scalars['ID']['input'];
};

export type ForgetProjectPayload = BadUserInputError | LimitExceededError | NotFoundError | ScopeForgotten;

export type ForgetSessionInput = {
  id: Scalars['ID']['input'];
};

export type ForgetSessionPayload = BadUserInputError | LimitExceededError | NotFoundError | ScopeForgotten;

/** Everything that went: the memories, summaries only they supported, orphaned entities and turns. */
export type ForgetSuccess = {
  __typename?: 'ForgetSuccess';
  entities: Array<Scalars['ID']['output']>;
  memories: Array<Scalars['ID']['output']>;
  receipt: ErasureReceipt;
  turns: Array<Scalars['ID']['output']>;
};

/** Leave `user` out (or give your own id) to erase yourself; only an admin key may name another user. */
export type ForgetUserInput = {
  user?: InputMaybe<Scalars['ID']['input']>;
};

export type ForgetUserPayload = BadUserInputError | LimitExceededError | NotFoundError | ScopeForgotten;

export type ImportDocumentInput = {
  /** The document itself, as JSON. */
  document: Scalars['JSON']['input'];
  kind: DocumentKind;
  /** A session document's project. */
  project?: InputMaybe<Scalars['ID']['input']>;
  session?: InputMaybe<Scalars['ID']['input']>;
};

export type ImportDocumentPayload = BadUserInputError | DocumentImported | LimitExceededError | NotFoundError;

/** A store item's score for a query: its best indexed field's cosine, from -1 to 1. */
export type ItemScore = {
  __typename?: 'ItemScore';
  memory: Scalars['ID']['output'];
  score: Scalars['Float']['output'];
};

export type LearningProgress = {
  __typename?: 'LearningProgress';
  completedLessons: Array<Scalars['String']['output']>;
  currentLesson?: Maybe<Scalars['String']['output']>;
  strugglingTopics: Array<Scalars['String']['output']>;
};

/** The request passes a limit: a tier's capacity, a list's length. */
export type LimitExceededError = UserError & {
  __typename?: 'LimitExceededError';
  code: ErrorCode;
  message: Scalars['String']['output'];
};

export type LinkInput = {
  from: Scalars['ID']['input'];
  note?: InputMaybe<Scalars['String']['input']>;
  to: Scalars['ID']['input'];
  type: EdgeType;
};

export type LinkPayload = BadUserInputError | LimitExceededError | LinkSuccess | NotFoundError;

export type LinkSuccess = {
  __typename?: 'LinkSuccess';
  edge: Edge;
};

/** long-term-memory.json, as the graph holds it now. */
export type LongTermDocument = {
  __typename?: 'LongTermDocument';
  lastUpdated?: Maybe<Scalars['String']['output']>;
  learningProgress?: Maybe<LearningProgress>;
  preferences: Array<Setting>;
  recurringPatterns: Array<RecurringPattern>;
  skillEvolution: Array<SkillChange>;
  userId: Scalars['String']['output'];
};

/** One memory: the tuple (id, content, embedding, time, tier, relevance) with its scope and bookkeeping. */
export type Memory = {
  __typename?: 'Memory';
  accessCount: Scalars['Int']['output'];
  archived: Scalars['Boolean']['output'];
  attributes?: Maybe<Scalars['JSON']['output']>;
  content: Scalars['String']['output'];
  createdAt?: Maybe<Scalars['DateTime']['output']>;
  /** Entities this memory mentions. */
  entities: Array<Entity>;
  id: Scalars['ID']['output'];
  kind?: Maybe<MemoryKind>;
  /** Entity labels of the node (Decision, Error …). */
  labels: Array<Scalars['String']['output']>;
  lastAccessedAt?: Maybe<Scalars['DateTime']['output']>;
  project?: Maybe<Scalars['String']['output']>;
  /** The entity this memory records (a decision, an error …), if any. */
  records?: Maybe<Entity>;
  relevance?: Maybe<Scalars['Float']['output']>;
  session?: Maybe<Scalars['String']['output']>;
  summary?: Maybe<Scalars['String']['output']>;
  tier: Tier;
  tokens?: Maybe<Scalars['Int']['output']>;
  validFrom?: Maybe<Scalars['DateTime']['output']>;
  /** Set when a newer fact superseded this one. */
  validUntil?: Maybe<Scalars['DateTime']['output']>;
};

export type MemoryConnection = {
  __typename?: 'MemoryConnection';
  nodes: Array<Memory>;
  pageInfo: PageInfo;
};

/** A change to the caller's memory, as a mutation made it. */
export type MemoryEvent = {
  __typename?: 'MemoryEvent';
  at: Scalars['DateTime']['output'];
  entityIds: Array<Scalars['ID']['output']>;
  /** REMEMBERED, UPDATED, FORGOTTEN, DECISION_RECORDED, LINKED, SESSION_ENDED … */
  kind: Scalars['String']['output'];
  memoryIds: Array<Scalars['ID']['output']>;
  project?: Maybe<Scalars['String']['output']>;
  session?: Maybe<Scalars['String']['output']>;
};

/** Which memories to list; every field narrows the list. */
export type MemoryFilter = {
  /** Also memories compression archived. */
  includeArchived?: Scalars['Boolean']['input'];
  /** Also facts a newer one superseded. */
  includeClosed?: Scalars['Boolean']['input'];
  kinds?: InputMaybe<Array<MemoryKind>>;
  project?: InputMaybe<Scalars['ID']['input']>;
  /** Only the memories the writes of these `requestId`s stored. */
  requestIds?: InputMaybe<Array<Scalars['ID']['input']>>;
  session?: InputMaybe<Scalars['ID']['input']>;
  tiers?: InputMaybe<Array<Tier>>;
};

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

/** An entity the memory mentions, besides those found in its text. */
export type MentionInput = {
  name: Scalars['String']['input'];
  type: EntityType;
};

export type Merge = {
  __typename?: 'Merge';
  kept: Scalars['ID']['output'];
  merged: Scalars['ID']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Append a turn to a session's transcript; past 75 % of its budget the oldest third is summarised. */
  appendTurn: AppendTurnPayload;
  /** Consolidate the caller's memory: deduplicate, promote, generalise, decay. */
  consolidate: ConsolidatePayload;
  /** Issue an API key for a user. Admin keys only. */
  createApiKey: CreateApiKeyPayload;
  /** End a session: promote what qualifies, evict the rest of its memory and its transcript. */
  endSession: EndSessionPayload;
  /** Export an Izanagi document as the graph holds it now. */
  exportDocument: ExportDocumentPayload;
  /** Delete a memory, an entity or a turn, with what only it supported. */
  forget: ForgetPayload;
  /** Erase a project: its memories, its sessions (as forgetSession does), entities and node. */
  forgetProject: ForgetProjectPayload;
  /** Erase a session: its memories and turns, the facts and memories derived from it, and what only they supported. */
  forgetSession: ForgetSessionPayload;
  /** Erase a user — yourself, or with an admin key anyone — with everything they own; the audit log keeps a tombstone. */
  forgetUser: ForgetUserPayload;
  /** Import an Izanagi document (session, project or long-term). */
  importDocument: ImportDocumentPayload;
  /** Add a knowledge-graph edge between two of the caller's entities. */
  link: LinkPayload;
  /** Record a decision now; close the decisions it replaces. */
  recordDecision: RecordDecisionPayload;
  /** Record an error, with its fix and the decision that caused it. */
  recordError: RecordErrorPayload;
  /** Record a recurring pattern. */
  recordPattern: RecordPatternPayload;
  /** Store a memory under its tier's rules (secrets scrubbed, capacity kept). */
  remember: RememberPayload;
  /** Revoke an API key. Admin keys only. */
  revokeApiKey: RevokeApiKeyPayload;
  /** Set a long-term preference (replacing the key's old value). */
  setPreference: SetPreferencePayload;
  /** Start (or resume) a session, optionally in a project. */
  startSession: StartSessionPayload;
  /** Remove a knowledge-graph edge. */
  unlink: UnlinkPayload;
  /** Change a memory's content, summary or relevance. */
  updateMemory: UpdateMemoryPayload;
};


export type MutationAppendTurnArgs = {
  input: AppendTurnInput;
};


export type MutationConsolidateArgs = {
  input: ConsolidateInput;
};


export type MutationCreateApiKeyArgs = {
  input: CreateApiKeyInput;
};


export type MutationEndSessionArgs = {
  input: EndSessionInput;
};


export type MutationExportDocumentArgs = {
  input: ExportDocumentInput;
};


export type MutationForgetArgs = {
  input: ForgetInput;
};


export type MutationForgetProjectArgs = {
  input: ForgetProjectInput;
};


export type MutationForgetSessionArgs = {
  input: ForgetSessionInput;
};


export type MutationForgetUserArgs = {
  input: ForgetUserInput;
};


export type MutationImportDocumentArgs = {
  input: ImportDocumentInput;
};


export type MutationLinkArgs = {
  input: LinkInput;
};


export type MutationRecordDecisionArgs = {
  input: RecordDecisionInput;
};


export type MutationRecordErrorArgs = {
  input: RecordErrorInput;
};


export type MutationRecordPatternArgs = {
  input: RecordPatternInput;
};


export type MutationRememberArgs = {
  input: RememberInput;
};


export type MutationRevokeApiKeyArgs = {
  input: RevokeApiKeyInput;
};


export type MutationSetPreferenceArgs = {
  input: SetPreferenceInput;
};


export type MutationStartSessionArgs = {
  input: StartSessionInput;
};


export type MutationUnlinkArgs = {
  input: UnlinkInput;
};


export type MutationUpdateMemoryArgs = {
  input: UpdateMemoryInput;
};

/** No such thing among the caller's own. */
export type NotFoundError = UserError & {
  __typename?: 'NotFoundError';
  code: ErrorCode;
  message: Scalars['String']['output'];
};

/** Where a page ends; pass `endCursor` as `after` for the next page. */
export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor?: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
};

/** A walk through the knowledge graph: nodes[i] -edges[i]- nodes[i+1]. */
export type Path = {
  __typename?: 'Path';
  edges: Array<Edge>;
  length: Scalars['Int']['output'];
  nodes: Array<Entity>;
};

/** The recall budget: critical 3 items / 300 tokens, high 2 / 200, medium 1 / 100, low nothing. */
export type Priority =
  | 'CRITICAL'
  | 'HIGH'
  | 'LOW'
  | 'MEDIUM';

/** The caller's long-term profile: preferences, recurring patterns, learning. */
export type Profile = {
  __typename?: 'Profile';
  /** The profile as long-term-memory.json (null when none was imported). */
  document?: Maybe<LongTermDocument>;
  /** Recurring patterns of the user, across projects. */
  patterns: Array<Entity>;
  /** Current preferences (a newer value for a key replaces the old one). */
  preferences: Array<Setting>;
  tierUsage: TierUsage;
};

/** A project: its project-memory.json profile and its live knowledge. */
export type Project = {
  __typename?: 'Project';
  /** decision → error → fix chains of the project. */
  chains: Array<Chain>;
  /** The project's decisions (active only by default; at most 100). */
  decisions: Array<Entity>;
  /** The profile as project-memory.json (null when none was imported). */
  document?: Maybe<ProjectDocument>;
  id: Scalars['ID']['output'];
  /** Technologies the project's memories record or mention. */
  technologies: Array<Entity>;
  tierUsage: TierUsage;
};


/** A project: its project-memory.json profile and its live knowledge. */
export type ProjectDecisionsArgs = {
  activeOnly?: Scalars['Boolean']['input'];
};

/** project-memory.json, as the graph holds it now. */
export type ProjectDocument = {
  __typename?: 'ProjectDocument';
  architecture: Architecture;
  conventions: Array<Setting>;
  errorHistory: Array<ErrorHistoryEntry>;
  lastUpdated?: Maybe<Scalars['String']['output']>;
  projectId: Scalars['String']['output'];
  techStack: Array<Setting>;
  type?: Maybe<Scalars['String']['output']>;
};

/** A session memory kept: `from` was the session's, `to` is its copy in a persistent tier. */
export type Promotion = {
  __typename?: 'Promotion';
  from: Scalars['ID']['output'];
  to: Scalars['ID']['output'];
};

export type Query = {
  __typename?: 'Query';
  /** API keys (of one user, when given). Admin keys only. */
  apiKeys: Array<ApiKey>;
  /** The caller's own reads and writes, newest first. */
  auditLog: AuditEventConnection;
  /** decision → CAUSED → error → SOLVED_BY → fix chains, per error. */
  chains: Array<Chain>;
  /** The context window for a query in a session, assembled section by section within budget. */
  context: AssembledContext;
  /** The caller's entities by name, a page at a time; `search` matches inside names. */
  entities: EntityConnection;
  /** One entity of the caller's knowledge graph. */
  entity?: Maybe<Entity>;
  /** A store search's scores: each of the caller's `memories` (at most 50) by its best indexed field's cosine to `query` (its own vector's, when it has no fields); another's id is left out. */
  itemScores: Array<ItemScore>;
  /** The caller's memories, newest first, a page at a time. */
  memories: MemoryConnection;
  /** One of the caller's memories. */
  memory?: Maybe<Memory>;
  /** The caller's long-term profile (long-term-memory.json) and preferences. */
  profile: Profile;
  /** A project's profile (project-memory.json) and live knowledge. */
  project: Project;
  /** The caller's memories that best answer `query`, ranked, within the priority's budget. */
  recall: RecallResult;
  /** Versions of hippograph, Neo4j and the embedding model in use (no key needed). */
  serverInfo: ServerInfo;
  /** One of the caller's sessions: its memories, transcript and document. */
  session?: Maybe<Session>;
  /** How full each tier of a scope is. */
  tierUsage: Array<TierUsage>;
  /** Paths through the knowledge graph from an entity, shortest first. */
  trace: Array<Path>;
  /** Check an erasure's receipt against the live store: that none of its ids, versions, index entries or vectors remains. Your own erasures, or with an admin key anyone's: a receipt is checked in the store of its `userId` only, and another user's answers NOT_FOUND. A user's erasure names the user twice (`scopeId` is `userId`); a receipt naming two users is BAD_USER_INPUT. */
  verifyErasure: ErasureCheck;
};


export type QueryApiKeysArgs = {
  user?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryAuditLogArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<AuditFilter>;
  first?: Scalars['Int']['input'];
};


export type QueryChainsArgs = {
  asOf?: InputMaybe<Scalars['DateTime']['input']>;
  first?: Scalars['Int']['input'];
  project?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryContextArgs = {
  contextWindow: Scalars['Int']['input'];
  profile?: RecallProfile;
  project?: InputMaybe<Scalars['ID']['input']>;
  query: Scalars['String']['input'];
  session: Scalars['ID']['input'];
  systemPrompt?: InputMaybe<Scalars['String']['input']>;
  toolDefinitions?: InputMaybe<Scalars['String']['input']>;
};


export type QueryEntitiesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: Scalars['Int']['input'];
  project?: InputMaybe<Scalars['ID']['input']>;
  search?: InputMaybe<Scalars['String']['input']>;
  type?: InputMaybe<EntityType>;
};


export type QueryEntityArgs = {
  id: Scalars['ID']['input'];
};


export type QueryItemScoresArgs = {
  memories: Array<Scalars['ID']['input']>;
  query: Scalars['String']['input'];
};


export type QueryMemoriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  asOf?: InputMaybe<Scalars['DateTime']['input']>;
  filter?: InputMaybe<MemoryFilter>;
  first?: Scalars['Int']['input'];
};


export type QueryMemoryArgs = {
  asOf?: InputMaybe<Scalars['DateTime']['input']>;
  id: Scalars['ID']['input'];
};


export type QueryProjectArgs = {
  id: Scalars['ID']['input'];
};


export type QueryRecallArgs = {
  asOf?: InputMaybe<Scalars['DateTime']['input']>;
  priority?: Priority;
  profile?: RecallProfile;
  project?: InputMaybe<Scalars['ID']['input']>;
  query: Scalars['String']['input'];
  session?: InputMaybe<Scalars['ID']['input']>;
  tiers?: InputMaybe<Array<Tier>>;
};


export type QuerySessionArgs = {
  id: Scalars['ID']['input'];
};


export type QueryTierUsageArgs = {
  asOf?: InputMaybe<Scalars['DateTime']['input']>;
  project?: InputMaybe<Scalars['ID']['input']>;
  session?: InputMaybe<Scalars['ID']['input']>;
};


export type QueryTraceArgs = {
  asOf?: InputMaybe<Scalars['DateTime']['input']>;
  direction?: Direction;
  edgeTypes?: InputMaybe<Array<EdgeType>>;
  from: Scalars['ID']['input'];
  maxDepth?: Scalars['Int']['input'];
};


export type QueryVerifyErasureArgs = {
  receipt: ErasureReceiptInput;
};

/** A row of the profile's ranking above its floor, before the budget chose the items. */
export type RankedMemory = {
  __typename?: 'RankedMemory';
  components: ScoreComponents;
  /** The memory's full text. */
  content: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  /** The stored memory behind this row. */
  memory?: Maybe<Memory>;
  score: Scalars['Float']['output'];
  tier: Tier;
};

/** A score above `fullAbove` is shown in full, above `summaryAbove` as its summary, else skipped; nothing under `ofTop` times the first item's score is delivered. */
export type RecallGates = {
  __typename?: 'RecallGates';
  fullAbove: Scalars['Float']['output'];
  /** The share of the first item's score an item must reach to be delivered, whatever budget is left (0: the whole budget). */
  ofTop: Scalars['Float']['output'];
  summaryAbove: Scalars['Float']['output'];
};

/** Whether a recalled memory is shown in full or as its compressed summary. */
export type RecallMode =
  | 'FULL'
  | 'SUMMARY';

/** How recall scores: `izanagi` and `hanzo` exactly as their sources, `hybrid` (default) vector, keyword and relation, weighed by the query's style. */
export type RecallProfile =
  | 'HANZO'
  | 'HYBRID'
  | 'IZANAGI';

export type RecallResult = {
  __typename?: 'RecallResult';
  /** The profile's lines; null when it keeps each tier's top k instead (hanzo). */
  gates?: Maybe<RecallGates>;
  items: Array<RecalledMemory>;
  profile: Scalars['String']['output'];
  /** The ranking `items` were chosen from, best first: every candidate above the profile's floor, before the budget. */
  ranking: Array<RankedMemory>;
  /** The audit event that logged this recall and the ids it returned: give it to recordDecision's `informedBy` to say this recall informed the decision. */
  recallId?: Maybe<Scalars['ID']['output']>;
  timings?: Maybe<RecallTimings>;
  totals: RecallTotals;
  weights: RecallWeights;
};


export type RecallResultRankingArgs = {
  first?: Scalars['Int']['input'];
};

export type RecallTimings = {
  __typename?: 'RecallTimings';
  embedMs: Scalars['Float']['output'];
  queryMs: Scalars['Float']['output'];
  totalMs: Scalars['Float']['output'];
};

export type RecallTotals = {
  __typename?: 'RecallTotals';
  budgetItems: Scalars['Int']['output'];
  budgetTokens: Scalars['Int']['output'];
  items: Scalars['Int']['output'];
  tokens: Scalars['Int']['output'];
};

/** The profile's weights: score = (vector·vector + keyword·keyword + recency·recency + relation·relation) × (1 + timeBoost·time) × (1 + periodBoost·period), each term a component, or the `carried` component where that is more. */
export type RecallWeights = {
  __typename?: 'RecallWeights';
  /** A strong match's session neighbour scores at least this times the match's strength (the `carried` component); 0: nothing is carried. */
  carry: Scalars['Float']['output'];
  keyword: Scalars['Float']['output'];
  periodBoost: Scalars['Float']['output'];
  recency: Scalars['Float']['output'];
  relation: Scalars['Float']['output'];
  timeBoost: Scalars['Float']['output'];
  vector: Scalars['Float']['output'];
};

export type RecalledMemory = {
  __typename?: 'RecalledMemory';
  components: ScoreComponents;
  /** The text shown: the full entry or its summary (see `mode`). */
  content: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  /** The stored memory behind this item. */
  memory?: Maybe<Memory>;
  mode: RecallMode;
  score: Scalars['Float']['output'];
  tier: Tier;
  tokens: Scalars['Int']['output'];
};

export type RecordDecisionInput = {
  /** Active decisions this one replaces: they are closed (validUntil set). */
  conflictsWith?: InputMaybe<Array<Scalars['ID']['input']>>;
  decision: Scalars['String']['input'];
  /** The recall that informed this decision (its `recallId`): the decision's `context` then shows what it returned. */
  informedBy?: InputMaybe<Scalars['ID']['input']>;
  project?: InputMaybe<Scalars['ID']['input']>;
  reason?: InputMaybe<Scalars['String']['input']>;
  /** Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an `OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored and stores nothing twice. */
  requestId?: InputMaybe<Scalars['ID']['input']>;
  session?: InputMaybe<Scalars['ID']['input']>;
  tier?: Tier;
};

export type RecordDecisionPayload = BadUserInputError | LimitExceededError | NotFoundError | RecordSuccess;

export type RecordErrorInput = {
  /** Adds (decision)-[:CAUSED]->(error). */
  causedBy?: InputMaybe<Scalars['ID']['input']>;
  error: Scalars['String']['input'];
  /** Adds (error)-[:SOLVED_BY]->(fix decision). */
  fix?: InputMaybe<Scalars['String']['input']>;
  project?: InputMaybe<Scalars['ID']['input']>;
  /** Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an `OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored and stores nothing twice. */
  requestId?: InputMaybe<Scalars['ID']['input']>;
  session?: InputMaybe<Scalars['ID']['input']>;
  tier?: Tier;
};

export type RecordErrorPayload = BadUserInputError | LimitExceededError | NotFoundError | RecordSuccess;

export type RecordPatternInput = {
  count?: Scalars['Int']['input'];
  pattern: Scalars['String']['input'];
  project?: InputMaybe<Scalars['ID']['input']>;
  /** Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an `OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored and stores nothing twice. */
  requestId?: InputMaybe<Scalars['ID']['input']>;
  session?: InputMaybe<Scalars['ID']['input']>;
  tier?: Tier;
};

export type RecordPatternPayload = BadUserInputError | LimitExceededError | NotFoundError | RecordSuccess;

/** A recorded fact: the memory that says it and the entity it records. */
export type RecordSuccess = {
  __typename?: 'RecordSuccess';
  causedBy?: Maybe<Entity>;
  /** Entities this record superseded. */
  closed: Array<Scalars['ID']['output']>;
  created: Scalars['Boolean']['output'];
  duplicateOf?: Maybe<Scalars['ID']['output']>;
  entity?: Maybe<Entity>;
  fix?: Maybe<Entity>;
  memory?: Maybe<Memory>;
  redacted: Array<Scalars['String']['output']>;
};

export type RecurringPattern = {
  __typename?: 'RecurringPattern';
  count?: Maybe<Scalars['Int']['output']>;
  lastSkill?: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  resolved?: Maybe<Scalars['Boolean']['output']>;
};

export type RememberInput = {
  attributes?: InputMaybe<Scalars['JSON']['input']>;
  content: Scalars['String']['input'];
  /** An ITEM's indexed fields (at most 50): each embedded on its own, so that `itemScores` scores the item by its best one. Scrubbed; only their vectors are kept. */
  fields?: InputMaybe<Array<Scalars['String']['input']>>;
  kind?: MemoryKind;
  mentions?: InputMaybe<Array<MentionInput>>;
  /** Needed for PROJECT memories. */
  project?: InputMaybe<Scalars['ID']['input']>;
  relevance?: Scalars['Float']['input'];
  /** Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an `OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored and stores nothing twice. */
  requestId?: InputMaybe<Scalars['ID']['input']>;
  /** Needed for SESSION memories. */
  session?: InputMaybe<Scalars['ID']['input']>;
  summary?: InputMaybe<Scalars['String']['input']>;
  tier: Tier;
};

export type RememberPayload = BadUserInputError | LimitExceededError | NotFoundError | RememberSuccess;

export type RememberSuccess = {
  __typename?: 'RememberSuccess';
  compression?: Maybe<CompressionReport>;
  /** False when the same text was already stored: `duplicateOf` is it. */
  created: Scalars['Boolean']['output'];
  duplicateOf?: Maybe<Scalars['ID']['output']>;
  memory?: Maybe<Memory>;
  /** Kinds of secrets replaced by [REDACTED:kind]. */
  redacted: Array<Scalars['String']['output']>;
};

export type RevokeApiKeyInput = {
  id: Scalars['ID']['input'];
};

export type RevokeApiKeyPayload = ApiKeyRevoked | BadUserInputError | LimitExceededError | NotFoundError;

/** `admin` keys may also manage keys. */
export type Role =
  | 'ADMIN'
  | 'USER';

/** How much went: nothing of it stays in any property, index or search. The audit log keeps a tombstone with these counts and the scope, never the content. */
export type ScopeForgotten = {
  __typename?: 'ScopeForgotten';
  /** Keys erased with their user (forgetUser only). */
  apiKeys: Scalars['Int']['output'];
  /** Entities nothing else mentions any more. */
  entities: Scalars['Int']['output'];
  /** Memories, with the facts and promoted memories derived from the scope and the summaries only they supported. */
  memories: Scalars['Int']['output'];
  projects: Scalars['Int']['output'];
  receipt: ErasureReceipt;
  sessions: Scalars['Int']['output'];
  turns: Scalars['Int']['output'];
};

/** The score's parts, each in [0, 1]; `vector` is null when the profile embeds nothing. */
export type ScoreComponents = {
  __typename?: 'ScoreComponents';
  /** What the memory carries from a strong match it follows (or, at the profile's preceding share, precedes) in its session: the weights' carry times that match's strength (its cosine, or its keyword score over the best). The score is the larger of this and the boosted weighted sum; 0 when the query's style carries nothing (only statements do). */
  carried: Scalars['Float']['output'];
  keyword: Scalars['Float']['output'];
  /** 1 when the memory was written in a day, month or year the query names ("in December 2023", "on October 13, 2023"): the weighted sum is then multiplied by 1 + the profile's period boost; else 0. */
  period: Scalars['Float']['output'];
  recency: Scalars['Float']['output'];
  relation: Scalars['Float']['output'];
  /** 1 when the query asks when and the memory says when (a time expression): the weighted sum is then multiplied by 1 + the profile's time boost; else 0. */
  time: Scalars['Float']['output'];
  vector?: Maybe<Scalars['Float']['output']>;
};

/** The running service and the database behind it. */
export type ServerInfo = {
  __typename?: 'ServerInfo';
  embeddingDimension: Scalars['Int']['output'];
  embeddingModel: Scalars['String']['output'];
  /** How memories are encoded as they really run: float32, bfloat16, int8 or onnx-int8 (HIPPOGRAPH_DOCUMENT_VECTORS, auto resolved). */
  memoryEncoding: Scalars['String']['output'];
  neo4jEdition: Scalars['String']['output'];
  neo4jVersion: Scalars['String']['output'];
  /** How queries are encoded as they really run (HIPPOGRAPH_QUERY_ENCODER, auto resolved): onnx-int8 (all-mpnet-base-v2 exported to ONNX Runtime in int8), int8 (a BERT such as MiniLM, in PyTorch) or float32 (an MPNet in PyTorch). */
  queryEncoding: Scalars['String']['output'];
  version: Scalars['String']['output'];
};

/** A conversation; its SESSION-tier memories are evicted (or promoted) when it ends. */
export type Session = {
  __typename?: 'Session';
  /** The session as an Izanagi session document (tasks, active context); null when none was imported. */
  document?: Maybe<Scalars['JSON']['output']>;
  endedAt?: Maybe<Scalars['DateTime']['output']>;
  id: Scalars['ID']['output'];
  /** The session's own (SESSION-tier) memories, newest first. */
  memories: Array<Memory>;
  project?: Maybe<Scalars['String']['output']>;
  startedAt?: Maybe<Scalars['DateTime']['output']>;
  status: Scalars['String']['output'];
  /** The standing summary of older turns (if any), then the recent turns. */
  transcript: Array<TranscriptEntry>;
};


/** A conversation; its SESSION-tier memories are evicted (or promoted) when it ends. */
export type SessionMemoriesArgs = {
  first?: Scalars['Int']['input'];
};

export type SessionEnded = {
  __typename?: 'SessionEnded';
  evicted: Array<Scalars['ID']['output']>;
  promoted: Array<Promotion>;
  session: Session;
  turnsDeleted: Scalars['Int']['output'];
};

export type SessionStarted = {
  __typename?: 'SessionStarted';
  session: Session;
};

/** A long-term preference; a new value for the same key closes the previous one. */
export type SetPreferenceInput = {
  key: Scalars['String']['input'];
  /** Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an `OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored and stores nothing twice. */
  requestId?: InputMaybe<Scalars['ID']['input']>;
  value: Scalars['String']['input'];
};

export type SetPreferencePayload = BadUserInputError | LimitExceededError | NotFoundError | RecordSuccess;

/** A named value: a tech-stack entry, a convention, a preference. */
export type Setting = {
  __typename?: 'Setting';
  key: Scalars['String']['output'];
  value: Scalars['String']['output'];
};

export type SkillChange = {
  __typename?: 'SkillChange';
  changes: Array<Scalars['String']['output']>;
  date?: Maybe<Scalars['String']['output']>;
  skill: Scalars['String']['output'];
  version?: Maybe<Scalars['String']['output']>;
};

export type StartSessionInput = {
  id: Scalars['ID']['input'];
  project?: InputMaybe<Scalars['ID']['input']>;
};

export type StartSessionPayload = BadUserInputError | LimitExceededError | NotFoundError | SessionStarted;

export type Subscription = {
  __typename?: 'Subscription';
  /** The caller's memory changes as mutations make them (of one project, when given). */
  memoryEvents: MemoryEvent;
};


export type SubscriptionMemoryEventsArgs = {
  project?: InputMaybe<Scalars['ID']['input']>;
};

/** One summarisation round: the oldest third of the transcript became a summary. */
export type SummaryRound = {
  __typename?: 'SummaryRound';
  covered: Array<Scalars['ID']['output']>;
  /** Facts extracted into project memory. */
  facts: Array<Scalars['ID']['output']>;
  summaryId: Scalars['ID']['output'];
  tokensAfter: Scalars['Int']['output'];
  tokensBefore: Scalars['Int']['output'];
};

/** Where a memory lives: this session, a project, or the user's long-term memory. */
export type Tier =
  | 'LONG_TERM'
  | 'PROJECT'
  | 'SESSION';

/** How full one tier of a scope is; compression starts past `trigger`. */
export type TierUsage = {
  __typename?: 'TierUsage';
  capacity: Scalars['Int']['output'];
  fill: Scalars['Float']['output'];
  items: Scalars['Int']['output'];
  project?: Maybe<Scalars['String']['output']>;
  session?: Maybe<Scalars['String']['output']>;
  tier: Tier;
  trigger: Scalars['Float']['output'];
  usedTokens: Scalars['Int']['output'];
};

/** A turn of the conversation, or the standing summary of older turns. */
export type TranscriptEntry = {
  __typename?: 'TranscriptEntry';
  at?: Maybe<Scalars['DateTime']['output']>;
  content: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  isSummary: Scalars['Boolean']['output'];
  /** The turn's item as it was appended (scrubbed); null when none was. */
  item?: Maybe<Scalars['JSON']['output']>;
  position: Scalars['Int']['output'];
  ref?: Maybe<Scalars['String']['output']>;
  role: Scalars['String']['output'];
  tokens: Scalars['Int']['output'];
};

export type TurnAppended = {
  __typename?: 'TurnAppended';
  position: Scalars['Int']['output'];
  redacted: Array<Scalars['String']['output']>;
  rounds: Array<SummaryRound>;
  transcriptTokens: Scalars['Int']['output'];
  turnId: Scalars['ID']['output'];
};

export type UnlinkInput = {
  from: Scalars['ID']['input'];
  to: Scalars['ID']['input'];
  type: EdgeType;
};

export type UnlinkPayload = BadUserInputError | LimitExceededError | NotFoundError | UnlinkSuccess;

export type UnlinkSuccess = {
  __typename?: 'UnlinkSuccess';
  removed: Scalars['Int']['output'];
};

/** What to change; fields left out keep their value, `summary: null` clears it. */
export type UpdateMemoryInput = {
  content?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
  relevance?: InputMaybe<Scalars['Float']['input']>;
  /** Your own id for this write (1-128 characters). Sent again with a retry — after a timeout, an `OUTCOME_UNKNOWN`, a lost connection — it answers with what the first attempt stored and stores nothing twice. */
  requestId?: InputMaybe<Scalars['ID']['input']>;
  summary?: InputMaybe<Scalars['String']['input']>;
};

export type UpdateMemoryPayload = BadUserInputError | LimitExceededError | NotFoundError | UpdateMemorySuccess;

export type UpdateMemorySuccess = {
  __typename?: 'UpdateMemorySuccess';
  memory: Memory;
  redacted: Array<Scalars['String']['output']>;
};

/** A mutation that did not happen, and why; nothing was changed. */
export type UserError = {
  code: ErrorCode;
  message: Scalars['String']['output'];
};
