/** A text that is not a readable iCalendar file; the message is for a person (it becomes lastError). */
export class CalendarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalendarFormatError';
  }
}
