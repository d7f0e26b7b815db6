import type { ApiResult, ManyChatApi } from '../../core/actions/channel-api.js';

/** A ManyChatApi that records each call (what the kind asked the API to do) and answers ok. */
export function recordingManyChatApi(): { api: ManyChatApi; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const ok = async (...args: unknown[]): Promise<ApiResult> => {
    calls.push(args);
    return { ok: true };
  };
  return {
    calls,
    api: {
      sendFlow: (...a) => ok('sendFlow', ...a),
      sendContent: (...a) => ok('sendContent', ...a),
      addTagByName: (...a) => ok('addTagByName', ...a),
      removeTagByName: (...a) => ok('removeTagByName', ...a),
      setCustomFieldByName: (...a) => ok('setCustomFieldByName', ...a),
    },
  };
}
