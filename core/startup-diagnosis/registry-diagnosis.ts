import { type Diagnosis, displayUrl } from './diagnosis.ts'
import type { HttpObservation } from './http-probe.ts'

// SCHEMA_REGISTRY_URL at start: what GET <url>/subjects answered, as a message that says what to
// do. A server that answers but not as a Confluent-compatible API (Apicurio's root, a web page)
// is a wrong URL, and no retry fixes it; nothing answering may be a registry still starting.
export const apicurioCompatPath = '/apis/ccompat/v7'

export function registryProbeUrl(registryUrl: string): string {
  return `${registryUrl.replace(/\/+$/, '')}/subjects`
}

function likelyFix(registryUrl: string): string {
  const shown = displayUrl(registryUrl)
  if (!new URL(registryUrl).pathname.replace(/\/+$/, '').endsWith(apicurioCompatPath)) {
    const origin = displayUrl(new URL(registryUrl).origin)
    return `For Apicurio Registry (the local stack's and docker compose's) the Confluent-compatible API is ${origin}${apicurioCompatPath}: set SCHEMA_REGISTRY_URL=${origin}${apicurioCompatPath}, or leave it unset for the local default.`
  }
  return `${shown} is the path of Apicurio's Confluent-compatible API: is another service listening on that port?`
}

const looksLikeHtml = (observed: { contentType: string; bodyStart: string }) =>
  /html/i.test(observed.contentType) || /^\s*</.test(observed.bodyStart)

export function diagnoseRegistry(registryUrl: string, observed: HttpObservation): Diagnosis | undefined {
  const tried = displayUrl(registryProbeUrl(registryUrl))
  const variable = 'SCHEMA_REGISTRY_URL'
  if (observed.kind === 'unreachable')
    return {
      variable,
      retriable: true,
      message:
        `SCHEMA_REGISTRY_URL: the schema registry is unreachable at ${displayUrl(registryUrl)} (GET ${tried}: ${observed.reason}). ` +
        'Start the local stack (`./run dev` does, or `bash scripts/stack/stack.sh up kafka registry`), or set SCHEMA_REGISTRY_URL to your registry. Retrying meanwhile.',
    }
  const { status } = observed
  if (status >= 200 && status < 300 && !looksLikeHtml(observed)) {
    if (/^\s*\[/.test(observed.bodyStart)) return undefined
    return {
      variable,
      retriable: false,
      message: `SCHEMA_REGISTRY_URL: GET ${tried} answered ${status} but not with the list of subjects a Confluent-compatible schema registry gives. ${likelyFix(registryUrl)}`,
    }
  }
  if (looksLikeHtml(observed))
    return {
      variable,
      retriable: false,
      message: `SCHEMA_REGISTRY_URL: GET ${tried} answered ${status} with an HTML page, not a Confluent-compatible schema registry API. ${likelyFix(registryUrl)}`,
    }
  if (status === 404)
    return {
      variable,
      retriable: false,
      message: `SCHEMA_REGISTRY_URL: GET ${tried} answered 404 Not Found: a server answers there, but not as a Confluent-compatible schema registry API. ${likelyFix(registryUrl)}`,
    }
  if (status === 401 || status === 403)
    return {
      variable,
      retriable: false,
      message: `SCHEMA_REGISTRY_URL: GET ${tried} answered ${status}: the registry refuses requests without credentials it accepts. Check the registry's access settings.`,
    }
  if (status >= 500)
    return {
      variable,
      retriable: true,
      message: `SCHEMA_REGISTRY_URL: GET ${tried} answered ${status}: the registry is there but failing (still starting?). Retrying meanwhile; its log says more (local stack: .stack/registry.log).`,
    }
  return {
    variable,
    retriable: false,
    message: `SCHEMA_REGISTRY_URL: GET ${tried} answered ${status}, not what a Confluent-compatible schema registry answers. ${likelyFix(registryUrl)}`,
  }
}
