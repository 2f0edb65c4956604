// Copies a text to the clipboard, with a fallback for pages the Clipboard API refuses (plain http).
import { useState } from 'react';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { Icon } from './icons';
import { toast } from './toast';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function CopyButton({
  text,
  label,
  copiedMessage,
  className = 'btn btn-secondary btn-sm',
}: {
  text: string;
  label?: string;
  copiedMessage?: string;
  className?: string;
}) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  async function onClick() {
    if (await copyText(text)) {
      setCopied(true);
      toast.success(copiedMessage ?? t('common.copiedToClipboard'), TOAST_SMALL_MS);
      setTimeout(() => setCopied(false), TOAST_SMALL_MS);
    } else {
      toast.error(t('common.copyFailed'));
    }
  }
  return (
    <button type="button" className={className} onClick={asyncHandler(onClick)} aria-label={label ?? t('common.copy')}>
      <Icon name={copied ? 'check' : 'copy'} size={16} />
      <span aria-hidden="true">{copied ? t('common.copied') : t('common.copy')}</span>
    </button>
  );
}
