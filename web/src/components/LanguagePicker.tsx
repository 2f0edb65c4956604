// The language picker: each language named in itself. Signed in, the choice is kept on the account
// (PATCH /api/users/profile); always on this browser too, for the sign-in page.
import { useId } from 'react';
import { toast } from './ui/toast';
import { errorMessage } from '../lib/api';
import { isLanguage, LANGUAGE_NAMES, LANGUAGES, useLanguage, useT } from '../lib/i18n';
import { asyncHandler } from '../lib/async-handler';

export function LanguagePicker({ className = '' }: { className?: string }) {
  const t = useT();
  const id = useId();
  const { language, choose } = useLanguage();

  async function onChange(value: string) {
    if (!isLanguage(value)) return;
    try {
      await choose(value);
    } catch (err) {
      toast.error(errorMessage(err, t('language.saveFailed')));
    }
  }

  return (
    <div className={`language-picker ${className}`}>
      <label htmlFor={id} className="visually-hidden">
        {t('language.label')}
      </label>
      <select id={id} className="language-select" value={language} onChange={asyncHandler((e) => onChange(e.target.value))}>
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
