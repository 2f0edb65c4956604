// What a success toast says when the API answered with words of its own (`message`): the API writes
// English, so in English its words are shown (they may say more than the screen knows, such as
// whether a verification mail went out); in any other language, the screen's own message.
import { currentLanguage } from './i18n';

export const answerText = (serverMessage: string | null | undefined, translated: string): string =>
  currentLanguage() === 'en' && serverMessage ? serverMessage : translated;
