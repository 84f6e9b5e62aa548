/**
 * The demos' restaurant: what the `bookTable` tool acts on, a side effect anyone can count.
 * It takes no idempotency key, as many real services do: a call made twice books twice.
 */
import type { BookingRequest } from '../ai-sdk-chat/model.js';

export interface Booking extends BookingRequest {
  readonly table: number;
  /** "T-0001". */
  readonly confirmation: string;
}

export class Restaurant {
  /** Every booking made, in order: the footer's "bookings" is its length. */
  readonly bookings: Booking[] = [];

  book({ people, time }: BookingRequest): Booking {
    const number = this.bookings.length + 1;
    const booking = { people, time, table: ((number * 7) % 20) + 1, confirmation: `T-${String(number).padStart(4, '0')}` };
    this.bookings.push(booking);
    return booking;
  }
}
