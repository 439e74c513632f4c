import { PermissionEnum, PlanEnum } from './enums';
import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The calling API key and what it may do' })
export class Viewer {
  @Field(() => String) keyId!: string;
  @Field(() => String) name!: string;
  @Field(() => Boolean) isAdmin!: boolean;
  @Field(() => PlanEnum) plan!: string;
  @Field(() => [PermissionEnum], { description: 'Effective permissions (the admin holds every one)' }) permissions!: string[];
  @Field(() => Boolean, { description: 'Speech generation and reads need no key here (no API_KEY configured)' }) speechOpen!: boolean;
}
