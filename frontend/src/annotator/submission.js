// What the worker reads around a submission, and where the page goes after it.
import { ApiError, postToMturk } from './api.js'

/** The message for labels still missing ([{ message }] from state.missingItems, in order; the first is shown). */
export function missingMessage(missing) {
  const n = missing.length
  return { tone: 'warn', text: `${n} ${n === 1 ? 'item still needs' : 'items still need'} a label. Jumped to the first: ${missing[0].message}.` }
}

/** The message for a submission that failed: the server's field errors, a refusal, a brief outage (503), or no
 * connection. */
export function submitErrorMessage(err) {
  if (err instanceof ApiError && err.status === 400 && err.body?.errors) {
    return { tone: 'warn', text: 'The server could not accept the labels:', items: err.body.errors.map((x) => `${x.field}: ${x.message}`) }
  }
  if (err instanceof ApiError && err.status === 403) {
    return { tone: 'warn', text: 'This assignment can no longer be submitted (expired, or preview).' }
  }
  if (err?.status === 409) return { tone: 'warn', text: 'Changed in another tab: reload.' } // stale draft_version
  if (err instanceof ApiError && err.status === 503) {
    // the server is up but its database is not (code database_unavailable): nothing was stored, nothing is lost
    return { tone: 'warn', text: 'The server is briefly unavailable. Your work is kept; try submitting again in a moment.', retry: true }
  }
  if (err instanceof ApiError && err.status === 429) {
    return { tone: 'warn', text: 'The server is busy. Your work is kept; try submitting again in a moment.', retry: true }
  }
  return { tone: 'warn', text: 'Could not reach the server. Your work is kept; try submitting again in a moment.', retry: isTransient(err) }
}

/**
 * How a failed submission is tried again. The server records a submission once per assignment (a repeat answers
 * 200 with duplicate: true), so sending it again after a lost answer cannot count the work twice; the element still
 * sends one request at a time.
 * attempts: tries in all, the first included; a wait is the server's Retry-After or the backoff, whichever is longer,
 * and at most maxDelayMs (with the defaults about 40 s from the first failure to the last try).
 */
export const SUBMIT_RETRY = Object.freeze({ attempts: 5, baseDelayMs: 2000, maxDelayMs: 20000 })

/** Whether trying again may succeed: no connection, the database briefly unavailable (503), rate limited (429),
 * or a gateway's answer while the app restarts (502, 504). Any other refusal (400, 403, 500...) would only repeat. */
export function isTransient(err) {
  if (!(err instanceof ApiError)) return true // fetch itself failed: no connection
  return [429, 502, 503, 504].includes(err.status)
}

/** Milliseconds to wait before try `failures + 1` after `failures` failed tries, or null when not to try again. */
export function submitRetryDelay(err, failures, policy = SUBMIT_RETRY) {
  if (!isTransient(err) || failures >= policy.attempts) return null
  const backoff = policy.baseDelayMs * 2 ** (failures - 1)
  const asked = err instanceof ApiError && err.retryAfterMs != null ? err.retryAfterMs : 0
  return Math.min(policy.maxDelayMs, Math.max(backoff, asked))
}

/** While waiting to send a failed submission again (retry: the footer offers "Try again" now). */
export function retryingMessage(err) {
  const why = !(err instanceof ApiError)
    ? 'Could not reach the server.'
    : err.status === 429
      ? 'The server is busy.'
      : 'The server is briefly unavailable.'
  return { tone: 'info', text: `Saving… ${why} Your work is kept and is sent again automatically.`, retry: true }
}

/** After the server accepted: MTurk's externalSubmit form, or the platform's completion page, or stay. */
export function handOff({ submitTo, assignmentId, completionUrl }, win = globalThis.window) {
  if (submitTo) postToMturk(submitTo, assignmentId)
  else if (completionUrl) win.location.assign(completionUrl)
}
