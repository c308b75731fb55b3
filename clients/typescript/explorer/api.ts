// The one way the explorer reaches the service: a typed document POSTed to /graphql (this origin) with
// the key from the page's session storage. Every refusal becomes an ApiError carrying its code.
import type { TypedDocumentString } from "../src/operations.js";

const KEY = "hippograph.key";

export class ApiError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export const key = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (value: string): void => sessionStorage.setItem(KEY, value),
  forget: (): void => sessionStorage.removeItem(KEY),
};

interface Answer<R> {
  data?: R | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function request<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  const response = await fetch("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key.get() ?? ""}` },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  let answer: Answer<R>;
  try {
    answer = (await response.json()) as Answer<R>;
  } catch {
    throw new ApiError(`HTTP ${response.status}`, response.statusText || "the answer was not JSON");
  }
  const first = answer.errors?.[0];
  if (first) throw new ApiError(first.extensions?.code ?? "ERROR", first.message);
  if (!answer.data) throw new ApiError(`HTTP ${response.status}`, "the answer held no data");
  return answer.data;
}

// Every page of an audit query, up to `pages` pages of 100 lines.
export async function pages<N>(
  fetchPage: (after: string | null) => Promise<{ nodes: N[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }>,
  limit: number,
): Promise<N[]> {
  const found: N[] = [];
  let after: string | null = null;
  for (let page = 0; page < limit; page++) {
    const answer = await fetchPage(after);
    found.push(...answer.nodes);
    if (!answer.pageInfo.hasNextPage) break;
    after = answer.pageInfo.endCursor;
  }
  return found;
}
