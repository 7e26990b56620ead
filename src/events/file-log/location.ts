/** Where an event's frame lives: segment number, byte offset in it, and frame length. */
export interface Location {
  segment: number;
  offset: number;
  length: number;
}
