import type { InboundMessage } from '../../core/inbound-message.js';
import type { ChannelDefinition } from './channel.js';
import { manyChatChannel } from './manychat/channel.js';
import { messengerChannel } from './messenger/channel.js';

/** Every channel, by the name an `InboundMessage` carries. A new channel adds one line here. */
const CHANNELS: Record<InboundMessage['channel'], ChannelDefinition> = {
  manychat: manyChatChannel,
  messenger: messengerChannel,
};

export function channelOf(name: InboundMessage['channel']): ChannelDefinition {
  return CHANNELS[name];
}
