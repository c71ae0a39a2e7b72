import { z } from 'zod';

/**
 * The languages of customer messages: English, Portuguese and Spanish (the order service's
 * production hubs are in Portugal and Spain). Kept apart from the catalogue so that naming a locale
 * loads no message-format code.
 */
export const LOCALES = ['en', 'pt', 'es'] as const;
export const LocaleSchema = z.enum(LOCALES);
export type Locale = z.infer<typeof LocaleSchema>;
