// The dashboard's error line: an HTML error page (a proxy's 502) is said in words, not printed as markup.
import { describe, expect, it } from 'vitest'

describe('errorMessage of an HTML error page', () => {
  it('says the status and the page title in words, never the markup', async () => {
    const { errorMessage } = await import('../src/dashboard/api.js')
    const page = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>'
    expect(errorMessage(page, 502)).toBe('HTTP 502 Bad Gateway: the server could not answer; try again in a moment')
    expect(errorMessage('<!DOCTYPE html><html><body><h1>Server Error (500)</h1></body></html>', 500)).toBe(
      'HTTP 500: the server could not answer; try again in a moment')
    expect(errorMessage('<title>Oops</title>', 503)).toBe('HTTP 503 Oops: the server could not answer; try again in a moment')
    expect(errorMessage('plain text reason', 400)).toBe('plain text reason') // a text answer is still shown as it is
  })
})
