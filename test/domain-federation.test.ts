/** Federation rules of domain/federation (pure, no server): cloud ids, outbound refusals, discovery, received notifications. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { localCloudId, parseCloudId, remoteBaseUrl } from '../src/domain/federation/cloud-id.js';
import { ocmDiscovery, outboundRefusal, trustedServerName } from '../src/domain/federation/rules.js';
import { convertPostedMessage, proxiedNotificationSubject, readMessagePosted } from '../src/domain/federation/message-posted.js';
import { readRoomModified } from '../src/domain/federation/room-modified.js';
import { isRefusal } from '../src/domain/federation/ocm.js';
import { NotificationLevel } from '../src/domain/constants.js';

describe('cloud ids', () => {
  // [input, normalised id or undefined]
  const table: Array<[string, string | undefined]> = [
    ['bob@cloud.example.org', 'bob@cloud.example.org'],
    ['bob@Cloud.Example.ORG', 'bob@cloud.example.org'],
    ['bob@cloud.example.org:8443', 'bob@cloud.example.org:8443'],
    ['bob@cloud.example.org/nextcloud', 'bob@cloud.example.org/nextcloud'],
    ['bob@cloud.example.org:8443/a/b', 'bob@cloud.example.org:8443/a/b'],
    ['bob@cloud.example.org/', 'bob@cloud.example.org'],
    ['bob@https://cloud.example.org', 'bob@cloud.example.org'],
    ['bob@http://127.0.0.1:8080', 'bob@http://127.0.0.1:8080'],
    ['bob@[2001:db8::1]:443', 'bob@[2001:db8::1]:443'],
    ['bob@localhost', 'bob@localhost'],
    ['bob.smith@example.com@cloud.example.org', 'bob.smith@example.com@cloud.example.org'],
    ["o'neil+x_y-z@cloud.example.org", "o'neil+x_y-z@cloud.example.org"],
    ['bob', undefined],
    ['@cloud.example.org', undefined],
    ['bob@', undefined],
    ['bob smith@cloud.example.org', undefined],
    ['bob@cloud example.org', undefined],
    ['bob@cloud.example.org:0', undefined],
    ['bob@cloud.example.org:65536', undefined],
    ['bob@cloud.example.org:08', undefined],
    ['bob@cloud.example.org:', undefined],
    ['bob@-cloud.example.org', undefined],
    ['bob@cloud..example.org', undefined],
    ['bob@cloud.example.org/../x', undefined],
    ['bob@cloud.example.org/a?b=c', undefined],
    ['bob@cloud.example.org#x', undefined],
    ['bob@user:pass@cloud.example.org', undefined],
    ['bob@ftp://cloud.example.org', undefined],
    ['bob@[not-v6]', undefined],
    ['bob@999.1.1.1', undefined],
    ['bob@cloud.example.org\n', undefined],
    ['b'.repeat(65) + '@cloud.example.org', undefined],
    ['bob@' + 'a'.repeat(64) + '.org', undefined],
    ['bob@' + 'a.'.repeat(130) + 'org', undefined],
  ];
  for (const [input, expected] of table) {
    it(`${JSON.stringify(input.length > 40 ? input.slice(0, 40) + '…' : input)} → ${expected ?? 'refused'}`, () => {
      assert.equal(parseCloudId(input)?.id, expected);
    });
  }

  it('names the parts', () => {
    assert.deepEqual(parseCloudId('alice@cloud.example.org:8443/nc'), {
      user: 'alice',
      remote: 'cloud.example.org:8443/nc',
      host: 'cloud.example.org',
      port: 8443,
      path: '/nc',
      insecure: false,
      id: 'alice@cloud.example.org:8443/nc',
    });
    assert.equal(parseCloudId('alice@http://10.0.0.1')?.insecure, true);
  });

  it('requests go over https unless the remote says http://; own ids keep http://', () => {
    assert.equal(remoteBaseUrl('cloud.example.org:8443'), 'https://cloud.example.org:8443');
    assert.equal(remoteBaseUrl('http://127.0.0.1:9'), 'http://127.0.0.1:9');
    assert.equal(localCloudId('alice', 'https://talk.example.org/'), 'alice@talk.example.org');
    assert.equal(localCloudId('alice', 'http://127.0.0.1:8080'), 'alice@http://127.0.0.1:8080');
  });
});

describe('outbound requests and trust', () => {
  it('plain http and internal address literals only with FEDERATION_ALLOW_INSECURE', () => {
    assert.equal(outboundRefusal('cloud.example.org', false), undefined);
    assert.equal(outboundRefusal('http://cloud.example.org', false), 'insecure');
    for (const internal of ['127.0.0.1:8080', 'localhost', '10.1.2.3', '192.168.1.1', '172.16.0.1', '169.254.169.254', '[::1]', '[fd00::1]', '0.0.0.0']) {
      assert.equal(outboundRefusal(internal, false), 'internal', internal);
      assert.equal(outboundRefusal(internal, true), undefined, internal);
    }
    assert.equal(outboundRefusal('http://127.0.0.1:8080', true), undefined);
    assert.equal(outboundRefusal('not a server', true), 'remote');
  });

  it('trusted servers are named without their scheme', () => {
    assert.equal(trustedServerName('https://Cloud.Example.org/'), 'cloud.example.org');
    assert.equal(trustedServerName('http://127.0.0.1:8080'), '127.0.0.1:8080');
    assert.equal(trustedServerName('cloud.example.org:8443/nc'), 'cloud.example.org:8443/nc');
    assert.equal(trustedServerName('no such thing'), undefined);
  });

  it('discovery announces talk-room only while federation is on', () => {
    const on = ocmDiscovery('https://talk.example.org/', true);
    assert.equal(on.endPoint, 'https://talk.example.org/ocm');
    assert.deepEqual(on.resourceTypes, [{ name: 'talk-room', shareTypes: ['user'], protocols: { 'talk-v1': '/ocs/v2.php/apps/spreed/api/' } }]);
    const off = ocmDiscovery('https://talk.example.org', false);
    assert.equal(off.enabled, false);
    assert.deepEqual(off.resourceTypes, []);
  });
});

describe('MESSAGE_POSTED and ROOM_MODIFIED (received)', () => {
  const messageData = {
    remoteMessageId: 42,
    actorType: 'users',
    actorId: 'alice',
    actorDisplayName: 'Alice',
    messageType: 'comment',
    systemMessage: '',
    expirationDatetime: '',
    message: 'hi {mention-federated-user1} and {mention-call1}',
    messageParameter: JSON.stringify({
      'mention-federated-user1': { type: 'user', id: 'bob', name: 'Bob', server: 'b.example.org' },
      'mention-call1': { type: 'call', id: 'hosttoken', name: 'Room' },
      'mention-user1': { type: 'user', id: 'carol', name: 'Carol' },
    }),
    creationDatetime: '2026-12-06T08:00:00+00:00',
    metaData: '[]',
  };
  const unreadInfo = { unreadMessages: 3, unreadMention: true, unreadMentionDirect: false, lastReadMessage: 39 };
  const context = {
    hostRemote: 'a.example.org',
    ownRemote: 'b.example.org',
    localToken: 'localtok',
    actor: (type: string, id: string) => (type === 'users' ? { type: 'federated_users', id: `${id}@a.example.org` } : { type, id }),
  };

  it('reads a well-formed one and maps it for the server keeping the conversation', () => {
    const read = readMessagePosted({ remoteToken: 'hosttoken', messageData, unreadInfo });
    assert.ok(!isRefusal(read));
    assert.equal(read.message.createdAt, Date.parse('2026-12-06T08:00:00Z') / 1000);
    assert.deepEqual(read.unread, unreadInfo);
    const m = convertPostedMessage(read.message, context);
    assert.deepEqual([m.actorType, m.actorId], ['federated_users', 'alice@a.example.org']);
    assert.deepEqual(m.parameters['mention-federated-user1'], { type: 'user', id: 'bob', name: 'Bob', 'mention-id': 'bob' });
    assert.equal(m.parameters['mention-call1'].id, 'localtok');
    assert.equal(m.parameters['mention-user1'].server, 'a.example.org');
    // bob is mentioned directly; carol is not a user of this server.
    assert.equal(proxiedNotificationSubject(m, 'bob', NotificationLevel.DEFAULT, NotificationLevel.MENTION), 'mention_direct');
    assert.equal(proxiedNotificationSubject(m, 'dave', NotificationLevel.DEFAULT, NotificationLevel.MENTION), 'mention_all');
    assert.equal(proxiedNotificationSubject(m, 'bob', NotificationLevel.NEVER, NotificationLevel.MENTION), undefined);
    assert.equal(proxiedNotificationSubject(m, 'dave', NotificationLevel.ALWAYS, NotificationLevel.MENTION), 'chat');
    assert.equal(proxiedNotificationSubject({ ...m, metaData: { silent: true } }, 'bob', NotificationLevel.DEFAULT, NotificationLevel.MENTION), undefined);
  });

  it('refuses what does not fit, naming the fields', () => {
    const refused = (fields: Record<string, unknown>) => {
      const r = readMessagePosted(fields);
      return isRefusal(r) ? (r.validationErrors ?? []).map((e) => e.name) : [];
    };
    assert.deepEqual(refused({ remoteToken: 'x y', messageData, unreadInfo }), ['remoteToken']);
    assert.deepEqual(refused({ remoteToken: 'tok', messageData: { ...messageData, messageParameter: '[1]' }, unreadInfo }), ['messageData.messageParameter']);
    assert.deepEqual(refused({ remoteToken: 'tok', messageData: { ...messageData, expirationDatetime: 'soon' }, unreadInfo }), [
      'messageData.expirationDatetime',
    ]);
    assert.deepEqual(refused({ remoteToken: 'tok', messageData, unreadInfo: { ...unreadInfo, lastReadMessage: '1' } }), ['unreadInfo.lastReadMessage']);
  });

  it('ROOM_MODIFIED: the properties kept, bad values refused, others ignored', () => {
    assert.deepEqual(readRoomModified({ changedProperty: 'description', newValue: 'x' }), { description: 'x' });
    assert.deepEqual(readRoomModified({ changedProperty: 'type', newValue: 3 }), { type: 3 });
    assert.ok(isRefusal(readRoomModified({ changedProperty: 'type', newValue: 1 })));
    assert.deepEqual(readRoomModified({ changedProperty: 'lobby', newValue: 1, dateTime: '1800000000' }), { lobby_state: 1, lobby_timer: 1800000000 });
    assert.deepEqual(readRoomModified({ changedProperty: 'lobby', newValue: 0, dateTime: '' }), { lobby_state: 0, lobby_timer: 0 });
    assert.ok(isRefusal(readRoomModified({ changedProperty: 'readOnly', newValue: 2 })));
    assert.deepEqual(readRoomModified({ changedProperty: 'avatar', newValue: 'abc123.png' }), { avatar: 'abc123.png' });
    assert.deepEqual(readRoomModified({ changedProperty: 'avatar', newValue: '' }), { avatar: '' });
    for (const bad of ['../x.png', 'a b', 7, 'x'.repeat(65)])
      assert.equal(isRefusal(readRoomModified({ changedProperty: 'avatar', newValue: bad })), true, String(bad));
    assert.equal(readRoomModified({ changedProperty: 'recordingConsent', newValue: 1 }), undefined);
  });
});
