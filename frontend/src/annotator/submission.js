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
  if (err instanceof ApiError && err.status === 503) {
    // the server is up but its database is not (code database_unavailable): nothing was stored, nothing is lost
    return { tone: 'warn', text: 'The server is briefly unavailable. Your work is kept; try submitting again in a moment.' }
  }
  return { tone: 'warn', text: 'Could not reach the server. Your work is kept; try submitting again in a moment.' }
}

/** After the server accepted: MTurk's externalSubmit form, or the platform's completion page, or stay. */
export function handOff({ submitTo, assignmentId, completionUrl }, win = globalThis.window) {
  if (submitTo) postToMturk(submitTo, assignmentId)
  else if (completionUrl) win.location.assign(completionUrl)
}
