/**
 * Lists ordered by a creation or join time break ties by id: two rows stamped in the same
 * millisecond (timestamps are ISO strings to the millisecond) come in id order, not in the order
 * they were made. A test about that order waits for the clock to move between the two.
 */
export const nextMillisecond = () => new Promise<void>((resolve) => setTimeout(resolve, 2));
