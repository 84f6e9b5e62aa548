/** The demo servers' counters (`GET /api/stats`), as the page's footer shows them. */
import type { Savings } from './savings.js';

export interface Stats extends Savings {
  /** Distinct intent IDs (user messages) the chat route saw. */
  readonly intents: number;
  /** Requests to the chat route: reconnects and resumes included. */
  readonly requests: number;
  /** Answers whose connection the `cut` fault dropped. */
  readonly cuts: number;
  /** Tables the `bookTable` tool booked: its side effect, counted where it happens. */
  readonly bookings: number;
}
