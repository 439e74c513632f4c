/**
 * Type test (`npm run typetest -w @speech-gateway/client`, and tests/clients/typescript-types.test.ts):
 * every line marked @ts-expect-error must fail to compile, every other line must compile.
 */
import { type GatewayClient, documents, type Framework, type Provider } from '../src';

declare const gw: GatewayClient;

// Correct calls compile.
void gw.generateSpeech({ text: 'Hello', options: { provider: 'mock', voice: 'mock-voice-1' } });
void gw.createRequirement({ title: 'Audit log', framework: 'soc2', priority: 'high' });
void gw.listRequirements({ framework: 'gdpr', limit: 10 });
void gw.graphql.request(documents.CreateRequirementDocument, { input: { title: 'x', framework: 'GDPR', priority: 'HIGH' } });
const provider: Provider = 'provider_b';
const framework: Framework = 'iso13485';
void provider;
void framework;

// @ts-expect-error 'provider_z' is not a provider
void gw.generateSpeech({ text: 'Hello', options: { provider: 'provider_z' } });
// @ts-expect-error 'hipaa' is not a framework
void gw.createRequirement({ title: 'Audit log', framework: 'hipaa' });
// @ts-expect-error 'hipaa' is not a framework filter either
void gw.listRequirements({ framework: 'hipaa' });
// @ts-expect-error a Framework is one of the four
const wrong: Framework = 'hipaa';
void wrong;
// @ts-expect-error text is required
void gw.generateSpeech({ options: { provider: 'mock' } });
// @ts-expect-error the path parameter is required
void gw.getRequirement();
// @ts-expect-error 'HIPAA' is not a FrameworkId of the GraphQL schema
void gw.graphql.request(documents.CreateRequirementDocument, { input: { title: 'x', framework: 'HIPAA' } });
// @ts-expect-error GraphQL takes the enum name (PROVIDER_B), not the REST string
void gw.graphql.request(documents.GenerateSpeechDocument, { input: { text: 'Hello', options: { provider: 'provider_b' } } });
